/**
 * Where an import's time goes, by phase: from the call to the first batch of leads written (the
 * worker's start, teams, members and subteams), the batches of leads (up to the last one's
 * statement done), and what follows (the end-of-import checks and the commit). Inside the lead
 * phase: how long the importing thread spent inside `insertLeads` (building a batch's statement,
 * then waiting for the one before it: the store's share) and outside it (preparing records and
 * waiting for the worker). The import runs in this process through tsx, into the store given,
 * which must hold no leads yet (a fresh file, or a fresh schema's URL with `search_path`).
 *
 *   node --import tsx bench/import-timeline.ts --database-url <url> <file.ndjson>
 *   node --import tsx bench/import-timeline.ts --db <new file> <file.ndjson>
 *
 * A file for it: `BENCH_SCENARIOS=p5` writes the bench's, or any `leadline seed`-shaped NDJSON.
 */

import type { ImportWriter } from '../src/import/import.port.js';
import { fileSource, importRecords } from '../src/io/import/run-import.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/store.js';

const [flag, where, file] = process.argv.slice(2);
if ((flag !== '--db' && flag !== '--database-url') || where === undefined || file === undefined) {
  console.error('usage: bench/import-timeline.ts --db <new file> | --database-url <url> <file.ndjson>');
  process.exit(2);
}
const store: Store = flag === '--db' ? SqliteStore.open(where) : PostgresStore.open(where);
await store.migrate();

const calls: number[] = [];
const returns: number[] = [];
let leadsFinished = Number.NaN;
const importAtomically = store.importAtomically.bind(store);
store.importAtomically = <T>(work: (writer: ImportWriter) => Promise<T>) =>
  importAtomically(async (writer) => {
    const insertLeads = writer.insertLeads.bind(writer);
    const finishLeads = writer.finishLeads.bind(writer);
    writer.insertLeads = async (batch) => {
      calls.push(performance.now());
      await insertLeads(batch);
      returns.push(performance.now());
    };
    writer.finishLeads = async () => {
      const n = await finishLeads();
      leadsFinished = performance.now();
      return n;
    };
    return work(writer);
  });

const t0 = performance.now();
const summary = await importRecords(store, [fileSource(file)]);
const t1 = performance.now();
await store.close();

const first = calls[0] ?? Number.NaN;
let inside = 0;
calls.forEach((c, i) => {
  inside += returns[i]! - c;
});
const leadPhase = leadsFinished - first;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`${summary.leads} leads, ${calls.length} batches, ${s(t1 - t0)} from the call to its return`);
console.log(`  before the first batch of leads: ${s(first - t0)}`);
console.log(`  the batches of leads, to the last one's statement done: ${s(leadPhase)}`);
console.log(`    inside insertLeads (building a statement, waiting for the previous one): ${s(inside)}`);
console.log(`    outside it (preparing records, waiting for the worker): ${s(leadPhase - inside)}`);
console.log(`  after (the end-of-import checks, the commit): ${s(t1 - leadsFinished)}`);
