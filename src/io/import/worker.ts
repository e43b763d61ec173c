/**
 * The worker thread of a large import (import-feed.ts): once ready, it receives the input's
 * bytes from a line's end on, splits them into lines and prepares the records
 * (import-prepare.ts), one answer per piece, while the importing thread writes what it
 * answered before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LineSplitter } from '../../import/lines.js';
import {
  type Known,
  type PreparedBatch,
  type PrepareSettings,
  RecordPreparer,
} from '../../import/prepare.js';

/**
 * To the worker: a source's bytes from after line `lineNo` come next (the importing thread
 * prepared the lines before, and hands over what it learnt from them with the first source);
 * a piece of them; the source ends. Each piece and end gets one answer.
 */
export type ToWorker =
  | { source: string; lineNo: number; known?: Known }
  | { piece: Uint8Array }
  | { end: true };
/**
 * From the worker: it is ready (its modules loaded, sent once, first); the records of a piece
 * (or of a source's last line); or why it could not go on.
 */
export type FromWorker = { ready: true } | PreparedBatch | { fatal: string };

if (parentPort !== null) {
  const port = parentPort;
  const settings = workerData as PrepareSettings;
  let preparer = new RecordPreparer(settings);
  let name = '';
  let splitter = new LineSplitter(settings.importMaxRecordBytes);
  port.on('message', (m: ToWorker) => {
    try {
      if ('source' in m) {
        name = m.source;
        splitter = new LineSplitter(settings.importMaxRecordBytes, m.lineNo);
        if (m.known !== undefined) preparer = new RecordPreparer(settings, m.known);
        return;
      }
      const lines =
        'piece' in m
          ? splitter.push(Buffer.from(m.piece.buffer, m.piece.byteOffset, m.piece.length))
          : splitter.end();
      port.postMessage(preparer.lines(name, lines) satisfies FromWorker);
    } catch (err) {
      port.postMessage({ fatal: (err as Error).stack ?? String(err) } satisfies FromWorker);
    }
  });
  port.postMessage({ ready: true } satisfies FromWorker);
}
