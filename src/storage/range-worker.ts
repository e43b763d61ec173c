/**
 * The range thread (range-thread.ts): a store of its own on the same file or database, its v1
 * ranges read and serialised here, each piece handed over as text.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LeadStore } from '../leads/leads.port.js';
import { type V1Piece, v1Pieces } from '../leads/v1-wire.js';
import { PostgresStore } from './postgres/store.js';
import { type FromRangeThread, RANGE_BATCH, type StoreAddress, type ToRangeThread } from './range-thread.js';
import { SqliteStore } from './sqlite/store.js';
import { giveWayToServing } from './worker-thread.js';

interface Reading {
  pieces: AsyncIterator<V1Piece>;
  /** Pieces it may still send before the answer asks for more. */
  credit: number;
  busy: boolean;
  stopped: boolean;
}

if (parentPort !== null) {
  const port = parentPort;
  // A long answer waits for the requests that come meanwhile (docs/v1-reference.md "Long ranges").
  giveWayToServing();
  const address = workerData as StoreAddress;
  const store =
    address.engine === 'sqlite'
      ? SqliteStore.open(address.path)
      : PostgresStore.open(address.url, address.options);
  const leads: LeadStore = store.leads;
  const readings = new Map<number, Reading>();

  const send = (m: FromRangeThread) => port.postMessage(m);

  /** Sends pieces of reading `id` while it has credit, one read at a time. */
  const pump = async (id: number): Promise<void> => {
    const r = readings.get(id);
    if (r === undefined || r.busy) return;
    r.busy = true;
    try {
      while (r.credit > 0 && !r.stopped) {
        const next = await r.pieces.next();
        if (r.stopped) break;
        if (next.done === true) {
          readings.delete(id);
          send({ id, end: true });
          return;
        }
        r.credit--;
        send({ id, piece: next.value.text, count: next.value.count });
      }
    } catch (err) {
      readings.delete(id);
      const e = err as { message?: unknown; code?: unknown; severity?: unknown };
      send({
        id,
        error: String(e.message ?? err),
        code: typeof e.code === 'string' ? e.code : null,
        severity: typeof e.severity === 'string' ? e.severity : null,
      });
      return;
    } finally {
      r.busy = false;
    }
    if (r.stopped) await r.pieces.return?.().catch(() => {});
  };

  port.on('message', (m: ToRangeThread) => {
    if ('read' in m) {
      const pieces = v1Pieces(leads.range(m.read.scope, m.read.range, RANGE_BATCH))[Symbol.asyncIterator]();
      readings.set(m.id, { pieces, credit: m.read.readAhead, busy: false, stopped: false });
    } else if ('more' in m) {
      const r = readings.get(m.id);
      if (r !== undefined) r.credit++;
    } else {
      const r = readings.get(m.id);
      readings.delete(m.id);
      if (r !== undefined) {
        r.stopped = true;
        // Its reader left: nothing waits for how the read ends (a failure here is not the thread's).
        if (!r.busy) r.pieces.return?.().catch(() => {});
      }
      return;
    }
    void pump(m.id);
  });
}
