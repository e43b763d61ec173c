// Longer than the ~250 lines most files keep to: the batch hand-over between the reading thread
// and the worker is one protocol (order, back-pressure, errors), easier to check in one place.
/**
 * Feeds an import its prepared records (import-prepare.ts), in input order, a batch at a time.
 * A large input is prepared in a worker thread while this one writes the batches before, so
 * both cores work; a small one in this thread, since a worker costs more to start than its
 * records cost to prepare.
 *
 * This thread always reads the input (a file, standard input, a generator). It prepares the
 * records itself until the worker it started says it is ready, then hands the rest over at the
 * end of a line: the worker splits the bytes into lines and prepares them. At most WINDOW pieces
 * of input are in the worker or waiting to be written, so memory stays bounded however far
 * preparing runs ahead of writing.
 */
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { cannotRead } from '../../import/import-error.js';
import { LineSplitter } from '../../import/lines.js';
import type { PreparedBatch, PrepareSettings, RecordPreparer } from '../../import/prepare.js';
import type { FromWorker, ToWorker } from './worker.js';

export interface ImportSource {
  /** Name used in messages: the path, or `-` for standard input. */
  name: string;
  /** Its size in bytes when known (a file); unknown for standard input or a generator. */
  size?: number;
  open(): Readable;
}

/**
 * Input from which an import prepares its records in a worker. A worker takes ~0.15 s and ~12 MiB
 * to start; from about 4 MiB of input on (~11,000 leads) it pays for itself (`node --import tsx
 * bench/import-worker-cost.ts <leads>`; docs/import-format.md has the figures).
 */
export const WORKER_FROM_BYTES = 4 << 20;

/** Bytes handed to the worker at a time: pieces of a stream that yields lines are joined up to this. */
const PIECE_BYTES = 64 * 1024;
/**
 * Pieces in the worker or prepared and not yet written: enough that the worker keeps preparing
 * while a batch of 1,000 leads is written (~170 records a piece, so ~11,000 records and 4 MiB of
 * input in flight). A window of 8 left the writing thread waiting for the worker in trials by
 * hand; `node --import tsx bench/import-worker-cost.ts` times the import as it stands.
 */
const WINDOW = 64;
const NEWLINE = 0x0a;

/** Where an import prepares its records (workerPlan). */
export interface WorkerPlan {
  /** Start the worker once this many bytes have been read (Infinity: never). */
  startAt: number;
  /** Wait for the worker once started (every later record prepared there) instead of preparing here while it starts. */
  wait: boolean;
}

/**
 * By default files of WORKER_FROM_BYTES or more are prepared in the worker from their first
 * record (preparing here while it starts was no faster in trials by hand through `leadline
 * import`, no script kept: 12.52 s against 12.04 s for 100k leads, medians of three alternated
 * runs); input of unknown size (standard input, a
 * generator) starts it once that much is read and prepares here until it is ready; smaller
 * files never start one. `worker: true`: every record in the worker; `false`: none.
 */
export function workerPlan(sources: ImportSource[], worker?: boolean): WorkerPlan {
  if (worker !== undefined) return { startAt: worker ? 0 : Number.POSITIVE_INFINITY, wait: worker };
  let total = 0;
  for (const s of sources) {
    if (s.size === undefined) return { startAt: WORKER_FROM_BYTES, wait: false };
    total += s.size;
  }
  return total >= WORKER_FROM_BYTES
    ? { startAt: 0, wait: true }
    : { startAt: Number.POSITIVE_INFINITY, wait: false };
}

/** A read that failed is the operator's to fix (a file that went away, a directory); anything else is not theirs. */
function readFailure(err: unknown, source: ImportSource): unknown {
  return (err as NodeJS.ErrnoException).syscall !== undefined ? cannotRead(source.name, err) : err;
}

const asBuffer = (data: unknown): Buffer => (typeof data === 'string' ? Buffer.from(data) : (data as Buffer));

/**
 * The worker and its answers, in order. It says when it is ready (its modules loaded); one that
 * fails or exits on its own fails the next read.
 */
class WorkerLink {
  ready = false;
  /** Settles when the worker is ready, or has failed. */
  readonly started: Promise<void>;
  private onReady: () => void = () => {};
  /** Pieces and ends posted whose answer has not been read yet. */
  outstanding = 0;
  private readonly worker: Worker;
  private readonly answers: PreparedBatch[] = [];
  private waiting: { resolve: (m: PreparedBatch) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(settings: PrepareSettings) {
    this.started = new Promise((resolve) => {
      this.onReady = resolve;
    });
    this.worker = startWorker(settings);
    this.worker.on('message', (m: FromWorker) => {
      if ('ready' in m) {
        this.ready = true;
        this.onReady();
      } else if ('fatal' in m) this.fail(new Error(`the import worker failed: ${m.fatal}`));
      else if (this.waiting === null) this.answers.push(m);
      else {
        this.waiting.resolve(m);
        this.waiting = null;
      }
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the import worker exited (code ${code})`)));
  }

  private fail(err: Error): void {
    this.onReady();
    this.failure ??= err;
    this.waiting?.reject(this.failure);
    this.waiting = null;
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
    if (!('source' in m)) this.outstanding++;
  }

  /** Whether an answer can be read without waiting. */
  get answered(): boolean {
    return this.answers.length > 0;
  }

  async next(): Promise<PreparedBatch> {
    let m = this.answers.shift();
    if (m === undefined) {
      if (this.failure !== null) throw this.failure;
      m = await new Promise<PreparedBatch>((resolve, reject) => {
        this.waiting = { resolve, reject };
      });
    }
    this.outstanding--;
    return { ...m, worker: true };
  }

  /** Throws why the worker failed, if it did. */
  check(): void {
    if (this.failure !== null) throw this.failure;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * The worker, from its module beside this one: compiled, `worker.js`; run from the
 * sources (the tests, through tsx), `worker.ts` behind tsx's loader — a worker does not
 * inherit the loader hooks of the thread that starts it (Node 20).
 */
function startWorker(settings: PrepareSettings): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./worker.js', import.meta.url), { workerData: settings });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, {
    eval: true,
    workerData: settings,
  });
}

/** The prepared batches of `sources`, in input order, prepared where `plan` says (workerPlan). */
export async function* preparedBatches(
  sources: ImportSource[],
  settings: PrepareSettings,
  plan: WorkerPlan,
): AsyncGenerator<PreparedBatch> {
  // Loaded when this thread prepares a line: an input the worker takes from its start never
  // loads the record checks here.
  let preparer: RecordPreparer | null = null;
  const here = async (): Promise<RecordPreparer> =>
    (preparer ??= new (await import('../../import/prepare.js')).RecordPreparer(settings));
  let link: WorkerLink | null = null;
  let read = 0;
  /** The worker takes over from this thread once: with what this thread learnt, at a line's end. */
  let handedOver = false;
  const handOver = (worker: WorkerLink, name: string, lineNo: number) => {
    const known = handedOver ? undefined : preparer?.known;
    worker.post({ source: name, lineNo, ...(known === undefined ? {} : { known }) });
    handedOver = true;
  };
  /** Whether the worker is to be started now: none yet, and `read` has reached the plan's bytes. */
  const due = () => link === null && read >= plan.startAt;
  /** Starts the worker; with the plan's `wait`, resolves once it is ready. */
  const start = async (): Promise<WorkerLink> => {
    const fresh = new WorkerLink(settings);
    if (plan.wait) {
      await fresh.started;
      fresh.check();
    }
    return fresh;
  };
  try {
    for (const source of sources) {
      if (due()) link = await start();
      // Prepared here while `splitter` is set; by the worker from the line it was handed over at.
      let splitter: LineSplitter | null = new LineSplitter(settings.importMaxRecordBytes);
      let pieces: Buffer[] = [];
      let held = 0;
      const send = () => {
        link!.post({ piece: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, held) });
        pieces = [];
        held = 0;
      };
      if (link?.ready === true) {
        handOver(link, source.name, 0);
        splitter = null;
      }
      const input = source.open();
      try {
        for await (const data of input) {
          let chunk = asBuffer(data);
          read += chunk.length;
          if (due()) link = await start();
          if (splitter !== null) {
            // The worker takes over at the end of the chunk's last line, once it is ready.
            const cut = link?.ready === true ? chunk.lastIndexOf(NEWLINE) : -1;
            if (cut === -1) {
              yield (await here()).lines(source.name, splitter.push(chunk));
              continue;
            }
            yield (await here()).lines(source.name, splitter.push(chunk.subarray(0, cut + 1)));
            handOver(link!, source.name, splitter.lines);
            splitter = null;
            chunk = chunk.subarray(cut + 1);
          }
          pieces.push(chunk);
          held += chunk.length;
          if (held < PIECE_BYTES) continue;
          send();
          // Write what is prepared; wait for the worker only when the window is full.
          while (link!.outstanding >= WINDOW || link!.answered) yield await link!.next();
        }
      } catch (err) {
        throw readFailure(err, source);
      } finally {
        if (source.name !== '-') input.destroy();
      }
      if (splitter !== null) yield (await here()).lines(source.name, splitter.end());
      else {
        if (held > 0) send();
        link!.post({ end: true });
      }
    }
    while (link !== null && link.outstanding > 0) yield await link.next();
    // A worker that failed before it could take over is a broken install, not a detail: say so.
    link?.check();
  } finally {
    await link?.close();
  }
}
