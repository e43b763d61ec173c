/**
 * Feeds an import its prepared records (import-prepare.ts), in input order, a batch at a time:
 * prepared in this thread, or in a worker thread while this one writes the batches before.
 *
 * The importing thread always reads the input (a file, standard input, a generator) and hands
 * the worker its bytes; the worker splits them into lines and prepares the records. At most
 * WINDOW pieces of input are in the worker or waiting to be written, so memory stays bounded
 * however far preparing runs ahead of writing.
 */
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { ImportError } from './import-error.js';
import { LineSplitter } from './import-lines.js';
import { type PreparedBatch, type PrepareSettings, RecordPreparer } from './import-prepare.js';
import type { FromWorker, ToWorker } from './import-worker.js';

export interface ImportSource {
  /** Name used in messages: the path, or `-` for standard input. */
  name: string;
  /** Its size in bytes when known (a file); unknown for standard input or a generator. */
  size?: number;
  open(): Readable;
}

/** Bytes handed to the worker at a time: pieces of a stream that yields lines are joined up to this. */
const PIECE_BYTES = 64 * 1024;
/**
 * Pieces in the worker or prepared and not yet written: enough that the worker keeps preparing
 * while a batch of 1,000 leads is written (~170 records a piece). 8 left the writing thread
 * waiting ~1 s of a 100k-lead import; 64 cut the import by ~0.7 s (4 MiB of input in flight).
 */
const WINDOW = 64;

/**
 * Known input from which an import prepares its records in a worker. A worker takes 0.3–0.8 s
 * to start here (loading the record schemas' library again), what preparing ~10k records costs.
 */
export const WORKER_FROM_BYTES = 16 << 20;

/**
 * Whether an import prepares its records in a worker by default: when its files hold
 * WORKER_FROM_BYTES or more. Input of unknown size (standard input, a generator) is prepared in
 * this thread: it may be a few lines.
 */
export function wantsWorker(sources: ImportSource[]): boolean {
  let total = 0;
  for (const s of sources) {
    if (s.size === undefined) return false;
    total += s.size;
  }
  return total >= WORKER_FROM_BYTES;
}

/** A read that failed is the operator's to fix (a file that went away, a directory); anything else is not theirs. */
function readFailure(err: unknown, source: ImportSource): unknown {
  return (err as NodeJS.ErrnoException).syscall !== undefined
    ? new ImportError(source.name, 'cannot read the file')
    : err;
}

const asBuffer = (data: unknown): Buffer => (typeof data === 'string' ? Buffer.from(data) : (data as Buffer));

/** The batches of `sources`, prepared in this thread. */
async function* inThread(sources: ImportSource[], settings: PrepareSettings): AsyncGenerator<PreparedBatch> {
  const preparer = new RecordPreparer(settings);
  for (const source of sources) {
    const input = source.open();
    const splitter = new LineSplitter(settings.importMaxRecordBytes);
    try {
      for await (const data of input) yield preparer.lines(source.name, splitter.push(asBuffer(data)));
      yield preparer.lines(source.name, splitter.end());
    } catch (err) {
      throw readFailure(err, source);
    } finally {
      if (source.name !== '-') input.destroy();
    }
  }
}

/** The worker's messages, in order; a worker that fails or exits on its own fails the next read. */
class Inbox {
  private readonly ready: FromWorker[] = [];
  private waiting: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(worker: Worker) {
    worker.on('message', (m: FromWorker) => {
      if (this.waiting === null) this.ready.push(m);
      else {
        this.waiting.resolve(m);
        this.waiting = null;
      }
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      this.waiting?.reject(this.failure);
      this.waiting = null;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the import worker exited (code ${code})`)));
  }

  get hasReady(): boolean {
    return this.ready.length > 0;
  }

  async next(): Promise<PreparedBatch> {
    let m = this.ready.shift();
    if (m === undefined) {
      if (this.failure !== null) throw this.failure;
      m = await new Promise<FromWorker>((resolve, reject) => {
        this.waiting = { resolve, reject };
      });
    }
    if ('fatal' in m) throw new Error(`the import worker failed: ${m.fatal}`);
    return m;
  }
}

/** The batches of `sources`, prepared in a worker thread. */
async function* inWorker(sources: ImportSource[], settings: PrepareSettings): AsyncGenerator<PreparedBatch> {
  const worker = startWorker(settings);
  const inbox = new Inbox(worker);
  const post = (m: ToWorker) => worker.postMessage(m);
  let outstanding = 0;
  try {
    for (const source of sources) {
      post({ source: source.name });
      const input = source.open();
      let pieces: Buffer[] = [];
      let held = 0;
      const send = () => {
        post({ piece: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, held) });
        outstanding++;
        pieces = [];
        held = 0;
      };
      try {
        for await (const data of input) {
          const chunk = asBuffer(data);
          pieces.push(chunk);
          held += chunk.length;
          if (held < PIECE_BYTES) continue;
          send();
          // Write what is prepared; wait for the worker only when the window is full.
          while (outstanding >= WINDOW || inbox.hasReady) {
            yield await inbox.next();
            outstanding--;
          }
        }
      } catch (err) {
        throw readFailure(err, source);
      } finally {
        if (source.name !== '-') input.destroy();
      }
      if (held > 0) send();
      post({ end: true });
      outstanding++;
    }
    for (; outstanding > 0; outstanding--) yield await inbox.next();
  } finally {
    await worker.terminate();
  }
}

/**
 * The worker, from its module beside this one: compiled, `import-worker.js`; run from the
 * sources (the tests, through tsx), `import-worker.ts` behind tsx's loader — a worker does not
 * inherit the loader hooks of the thread that starts it (Node 20).
 */
function startWorker(settings: PrepareSettings): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./import-worker.js', import.meta.url), { workerData: settings });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./import-worker.ts', import.meta.url).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); })`, {
    eval: true,
    workerData: settings,
  });
}

/** The prepared batches of `sources`, in input order; `worker` chooses where they are prepared. */
export function preparedBatches(
  sources: ImportSource[],
  settings: PrepareSettings,
  worker: boolean,
): AsyncGenerator<PreparedBatch> {
  return worker ? inWorker(sources, settings) : inThread(sources, settings);
}
