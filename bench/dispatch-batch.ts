/**
 * The outbox's reads on SQLite with a backlog (src/storage/sqlite/deliveries.ts): the next
 * `batch` waiting events (100, the store's `dispatchBatch`; `WAITING_EVENTS`) and the outbox
 * depth gauge's count (`UNDISPATCHED`), each through the partial index of waiting events (now)
 * beside the same statement left to the planner (before: after an ANALYZE taken during the
 * backlog it scanned the table), alternated; then the store's whole dispatch step. Milliseconds,
 * the median of 20 each. The store is changed: give it a copy of an imported one, whose events
 * wait (`leadline import` logs one per lead). `dispatched`: the share of the backlog to mark
 * dispatched after the ANALYZE (0.9: nine tenths through it; 1: nothing left waiting).
 *
 *   cp store.db /tmp/copy.db && node --import tsx bench/dispatch-batch.ts /tmp/copy.db 0.9 [batch]
 */
import Database from 'better-sqlite3';
import { UNDISPATCHED, WAITING_EVENTS } from '../src/storage/sqlite/deliveries.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import { quantile } from './load.js';

const [path, share = '0', batch = '100'] = process.argv.slice(2);
/** The SQLite delivery store's `dispatchBatch` by default. */
const BATCH = Number(batch);
if (path === undefined) {
  console.error('usage: bench/dispatch-batch.ts <store.db copy> [dispatched share, 0–1] [batch, 100]');
  process.exit(2);
}
const raw = new Database(path, { fileMustExist: true });
// Statistics taken while the whole backlog waits, as a store settled right after its import has them.
raw.exec('ANALYZE');
const total = raw
  .prepare('SELECT count(*) FROM webhook_events WHERE dispatched_at IS NULL')
  .pluck()
  .get() as number;
const first = raw
  .prepare('SELECT min(seq) FROM webhook_events WHERE dispatched_at IS NULL')
  .pluck()
  .get() as number;
raw
  .prepare('UPDATE webhook_events SET dispatched_at = 1 WHERE dispatched_at IS NULL AND seq < ?')
  .run(first + Math.floor(total * Number(share)));
raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
const waiting = raw.prepare('SELECT count(*) FROM webhook_events WHERE dispatched_at IS NULL').pluck().get();
console.log(
  `${total} events waited when ANALYZE ran; ${waiting} still wait (${share} marked dispatched since)`,
);

const unnamed = (sql: string) => sql.replace(' INDEXED BY webhook_events_waiting', '');
const reads: [string, Database.Statement][] = [
  ['read through the partial index (now)', raw.prepare(WAITING_EVENTS).raw(true)],
  ['read as the planner chooses (before)', raw.prepare(unnamed(WAITING_EVENTS)).raw(true)],
  // The outbox depth gauge's count, read at every /metrics scrape (takes no limit: ignores it).
  ['count through the partial index (now)', raw.prepare(`${UNDISPATCHED} AND ? > 0`).raw(true)],
  ['count as the planner chooses (before)', raw.prepare(`${unnamed(UNDISPATCHED)} AND ? > 0`).raw(true)],
];
for (const [name, statement] of reads) {
  const plan = raw.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(BATCH) as {
    detail: string;
  }[];
  console.log(`${name}: ${plan.map((p) => p.detail).join(' | ')}`);
}
const ms = new Map<string, number[]>(reads.map(([name]) => [name, []]));
for (let round = 0; round < 20; round++)
  for (const [name, statement] of reads) {
    const t0 = performance.now();
    statement.all(BATCH);
    ms.get(name)!.push(performance.now() - t0);
  }
raw.close();

const store = SqliteStore.open(path);
const dispatch: number[] = [];
for (let round = 0; round < 20; round++) {
  const t0 = performance.now();
  if ((await store.deliveries.dispatch(BATCH, Date.now())) === 0) break;
  dispatch.push(performance.now() - t0);
}
await store.close();
ms.set('the store’s dispatch step (read, plan, mark), now', dispatch);
for (const [name, xs] of ms) console.log(`| ${name} | ${quantile(xs, 0.5).toFixed(2)} ms |`);
