/**
 * What the SQLite memories' per-request check costs (issue 16; `FileStamp` in
 * src/storage/sqlite/file-stamp.ts, read by the key memory and the last-lead memory): the file's
 * `data_version` and this connection's `total_changes()`, read as one SELECT
 * over the `pragma_data_version` table function (before fdd7191) or as two plain statements
 * (since), beside the ideal reference's `PRAGMA data_version` alone. 200,000 calls each, three
 * alternated rounds, microseconds a call.
 *
 *   node --import tsx bench/key-stamp.ts <store.db>     (e.g. one made by `leadline seed`)
 */
import Database from 'better-sqlite3';

const path = process.argv[2];
if (path === undefined) {
  console.error('usage: bench/key-stamp.ts <store.db>');
  process.exit(2);
}
// Read-write, as the server opens it (the check itself writes nothing).
const db = new Database(path, { fileMustExist: true });
const tableFunction = db.prepare('SELECT data_version, total_changes() FROM pragma_data_version').raw(true);
const version = db.prepare('PRAGMA data_version').pluck();
const changes = db.prepare('SELECT total_changes()').pluck();
const WAYS: [string, () => unknown][] = [
  ['one SELECT over pragma_data_version (before)', () => tableFunction.get()],
  ['PRAGMA data_version + SELECT total_changes() (now)', () => `${version.get()}:${changes.get()}`],
  ['PRAGMA data_version alone (the ideal reference)', () => version.get()],
];
const CALLS = 200_000;
const perCall = new Map<string, number[]>();
for (let round = 0; round < 3; round++) {
  for (const [name, call] of WAYS) {
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) call();
    perCall.set(name, [...(perCall.get(name) ?? []), ((performance.now() - t0) * 1000) / CALLS]);
  }
}
for (const [name, us] of perCall) {
  const median = [...us].sort((a, b) => a - b)[1] ?? 0;
  console.log(`${name}: ${us.map((u) => u.toFixed(2)).join(', ')} µs a call (median ${median.toFixed(2)})`);
}
db.close();
