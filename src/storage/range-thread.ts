import type { Worker } from 'node:worker_threads';
import type { EpochRange, RangeScope } from '../leads/leads.port.js';
import type { V1Piece } from '../leads/v1-wire.js';
import type { PostgresOptions } from './postgres/options.js';
import { startModuleWorker } from './worker-thread.js';

/**
 * Leads a piece holds (one store read on SQLite; ten a PostgreSQL page). Measured with
 * test/v1/streaming.test.ts on a 1M-lead answer when batches were serialised on the serving
 * thread: 1,000 grew the server's RSS by 100–125 MB, 250 by ~80 MB, 100 by ~63 MB at the same
 * total time, and answered a concurrent getLastLead as fast or faster.
 */
export const RANGE_BATCH = 100;
/** Pieces the thread may have read ahead of the answer's writes, per range. */
const READ_AHEAD = 2;
/**
 * The thread's young generation, MB. Its garbage is the rows and text of pieces already sent;
 * V8's default lets it grow to 48 MB before a collection, and the server's RSS with it: a 1M-lead
 * answer grew it by 79 MB at the default, 60 MB at 4 (the thread's start, ~15 MB, included), at
 * the same total time (bench/RESULTS.md "v1 ranges on a thread of their own").
 */
const YOUNG_GENERATION_MB = 4;

/** How the range thread reaches the store: the same file or database, a connection of its own. */
export type StoreAddress =
  | { engine: 'sqlite'; path: string }
  | { engine: 'postgres'; url: string; options: PostgresOptions };

/** To the range thread: read a range; the answer took a piece, send one more; stop reading. */
export type ToRangeThread =
  | { id: number; read: { scope: RangeScope; range: EpochRange; readAhead: number } }
  | { id: number; more: true }
  | { id: number; stop: true };

/** From it: a piece, the end of the range, or why it failed (message, code, PostgreSQL severity). */
export type FromRangeThread =
  | { id: number; piece: string; count: number }
  | { id: number; end: true }
  | { id: number; error: string; code: string | null; severity: string | null };

/**
 * The thread v1 ranges are read and serialised on (docs/v1-reference.md "Long ranges"), with a
 * connection of its own to the store: a 1M-lead answer is ~0.5 GB of JSON, and made on the
 * serving thread it shared that thread's time with every other request by turns (P3c in
 * bench/RESULTS.md). Here the serving thread only writes what the thread hands over, and the
 * thread runs at the lowest priority (giveWayToServing), so a request that comes meanwhile is
 * served first. Pieces come over as text: a transferred buffer would be freed only by the
 * serving thread's rare full collections, and its RSS grew by 100 MB of them; a copied string
 * dies young there. The thread reads at most READ_AHEAD pieces
 * ahead of what the answer has written, so memory stays flat however slowly the client reads.
 * Started at the first range; it keeps the process alive only while a range is being read.
 */
export class RangeThread {
  private worker: Worker | null = null;
  private next = 1;
  private readonly reading = new Map<number, (m: FromRangeThread) => void>();

  constructor(private readonly address: StoreAddress) {}

  async *read(scope: RangeScope, range: EpochRange): AsyncGenerator<V1Piece> {
    const worker = this.started();
    const id = this.next++;
    const arrived: FromRangeThread[] = [];
    let wake: (() => void) | null = null;
    this.reading.set(id, (m) => {
      arrived.push(m);
      wake?.();
    });
    worker.ref();
    worker.postMessage({ id, read: { scope, range, readAhead: READ_AHEAD } } satisfies ToRangeThread);
    let ended = false;
    try {
      for (;;) {
        while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        const m = arrived.shift() as FromRangeThread;
        if ('error' in m) {
          ended = true;
          throw Object.assign(new Error(m.error), {
            ...(m.code === null ? {} : { code: m.code }),
            ...(m.severity === null ? {} : { severity: m.severity }),
          });
        }
        if ('end' in m) {
          ended = true;
          return;
        }
        yield { text: m.piece, count: m.count };
        worker.postMessage({ id, more: true } satisfies ToRangeThread);
      }
    } finally {
      this.reading.delete(id);
      // The client went away mid-answer: the thread stops reading this range.
      if (!ended && this.worker === worker) worker.postMessage({ id, stop: true } satisfies ToRangeThread);
      if (this.reading.size === 0) worker.unref();
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    // Referenced while it ends, as ErasureThread.close: the exit that settles terminate() would
    // not keep the event loop alive on its own.
    w?.ref();
    if (w !== null) await w.terminate();
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startModuleWorker(import.meta.url, 'range-worker', this.address, {
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
    });
    worker.on('message', (m: FromRangeThread) => this.reading.get(m.id)?.(m));
    worker.on('error', (err) => this.fail(worker, err));
    worker.on('exit', (code) => this.fail(worker, new Error(`the range thread exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The thread is gone: every range being read fails, and the next one starts a new thread. */
  private fail(worker: Worker, err: Error): void {
    if (this.worker === worker) this.worker = null;
    for (const [id, deliver] of this.reading) deliver({ id, error: err.message, code: null, severity: null });
  }
}
