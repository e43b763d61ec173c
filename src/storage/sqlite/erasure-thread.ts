import type { Worker } from 'node:worker_threads';
import type { ErasureCandidate, ErasureOrder, ErasureReceipt } from '../../privacy/erasure.port.js';
import { startModuleWorker } from '../worker-thread.js';

/**
 * To the erasure thread: find an e-mail's candidates, check which named leads are live, carry
 * out an order, or checkpoint the WAL.
 */
export type ToErasureThread =
  | { id: number; candidates: { teamId: number | null; foldedEmail: string } }
  | { id: number; existing: { teamId: number; uuids: string[] } }
  | { id: number; erase: ErasureOrder }
  | { id: number; reclaim: true };
type Result = ErasureCandidate[] | string[] | ErasureReceipt | null;
/**
 * From it: the candidates, the live ids, the receipt or nothing (a reclaim); or the error's
 * message and SQLite code.
 */
export type FromErasureThread =
  | { id: number; result: Result }
  | { id: number; error: string; code: string | null };

/**
 * The thread a SQLite store's erasures run on (docs/privacy.md "Erasure"), with a connection of
 * its own to the file: an erasure is one synchronous transaction (better-sqlite3), and 10,000
 * leads take seconds — on the serving thread no request would be answered meanwhile; finding an
 * e-mail's candidates in the search index takes tens of milliseconds among 1M leads, checking
 * the 1,000 ids a request may name a thousand index lookups. Here the
 * serving thread keeps reading (WAL: its readers see the store as it was until the commit); a
 * write of its own waits for the erasure's commit, as it would for any other writer
 * (busy_timeout, holding the thread) — but for the usage ledger's, which waits in `idle`.
 * Started at the first erasure; it keeps the process alive only while an order is pending.
 */
export class ErasureThread {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>();

  private waiting: (() => void)[] = [];

  constructor(private readonly path: string) {}

  /**
   * While an order is pending on the thread, a promise that resolves when none is; else null. A
   * writer on the serving thread that can wait (the usage ledger's flush) waits on it, with the
   * event loop free, rather than for the erasure's write lock in busy_timeout, which holds it;
   * then asks again (another order may have come meanwhile) and writes once it answers null.
   */
  erasing(): Promise<void> | null {
    if (this.pending.size === 0) return null;
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  candidates(teamId: number | null, foldedEmail: string): Promise<ErasureCandidate[]> {
    return this.send((id) => ({ id, candidates: { teamId, foldedEmail } })) as Promise<ErasureCandidate[]>;
  }

  existing(teamId: number, uuids: string[]): Promise<string[]> {
    return this.send((id) => ({ id, existing: { teamId, uuids } })) as Promise<string[]>;
  }

  erase(order: ErasureOrder): Promise<ErasureReceipt> {
    return this.send((id) => ({ id, erase: order })) as Promise<ErasureReceipt>;
  }

  async reclaim(): Promise<void> {
    await this.send((id) => ({ id, reclaim: true }));
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    // Referenced while it ends: the thread is unreferenced between orders, and the exit that
    // settles terminate() would not keep the event loop alive — a closing process (a test's
    // last hook) could end with the promise pending.
    w?.ref();
    if (w !== null) await w.terminate();
  }

  private send(message: (id: number) => ToErasureThread): Promise<Result> {
    const worker = this.started();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(message(id));
    });
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startModuleWorker(import.meta.url, 'erasure-worker', this.path);
    worker.on('message', (m: FromErasureThread) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) {
        worker.unref();
        this.wake();
      }
      if (p === undefined) return;
      if ('error' in m) p.reject(Object.assign(new Error(m.error), m.code === null ? {} : { code: m.code }));
      else p.resolve(m.result);
    });
    worker.on('error', (err) => this.fail(worker, err));
    worker.on('exit', (code) => this.fail(worker, new Error(`the erasure thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** The thread is gone: every pending order fails, and the next one starts a new thread. */
  private fail(worker: Worker, err: Error): void {
    if (this.worker === worker) this.worker = null;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
