/**
 * The worker thread of a large import (import-feed.ts): it receives the input's bytes, splits
 * them into lines and prepares the records (import-prepare.ts), one answer per message, while
 * the importing thread writes what it answered before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LineSplitter } from './import-lines.js';
import { type PreparedBatch, type PrepareSettings, RecordPreparer } from './import-prepare.js';

/** To the worker: a source begins; a piece of its bytes; it ends. Each piece and end gets one answer. */
export type ToWorker = { source: string } | { piece: Uint8Array } | { end: true };
/** From the worker: the records of a piece (or of a source's last line); or why it could not go on. */
export type FromWorker = PreparedBatch | { fatal: string };

if (parentPort !== null) {
  const port = parentPort;
  const settings = workerData as PrepareSettings;
  const preparer = new RecordPreparer(settings);
  let name = '';
  let splitter = new LineSplitter(settings.importMaxRecordBytes);
  port.on('message', (m: ToWorker) => {
    try {
      if ('source' in m) {
        name = m.source;
        splitter = new LineSplitter(settings.importMaxRecordBytes);
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
}
