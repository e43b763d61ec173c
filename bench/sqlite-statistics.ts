/**
 * What planner statistics do to the v1 reads on SQLite, in process (the figures in CHANGELOG and
 * bench/misses.md): getLastLead's and getLastLeadTeam's queries timed on copies of one store
 * without statistics, after ANALYZE (with this build's STAT4 samples), and after ANALYZE without
 * the samples (as SqliteStore.migrate leaves a store) — each as it is (the collector's e-mail by
 * a look-up per row) and in the two forms it had before: a plain JOIN to `members` (SQLite may
 * then reorder the loops) and a CROSS JOIN (it keeps `leads` outside, but may build a Bloom
 * filter over `members` on every call when a member has many leads).
 *
 *   node bin/leadline.js --db /tmp/s.db seed --teams 1 --members 1000 --leads 100000 --seed bench
 *   node --import tsx bench/sqlite-statistics.ts /tmp/s.db
 *
 * `--as-is` times the store as it is, statistics included, without copying it (a 10M-lead store
 * from bench/grow.ts, settled as bench/harness/stores.ts does: 6 GB are not copied three times).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LEAD_QUERIES } from '../src/storage/sqlite/sqlite-leads.js';
import { median } from './lib.js';

const [source, mode] = process.argv.slice(2);
if (source === undefined)
  throw new Error('usage: bench/sqlite-statistics.ts <seeded SQLite store> [--as-is]');
const asIs = mode === '--as-is';
const dir = mkdtempSync(join(tmpdir(), 'leadline-stats-'));
const states: Record<string, string> = asIs
  ? { 'the store as it is': '' }
  : {
      'no statistics': '',
      'ANALYZE (with STAT4 samples)': 'ANALYZE',
      'ANALYZE, samples deleted': 'ANALYZE; DELETE FROM sqlite_stat4; ANALYZE sqlite_schema',
    };

/** The collector's e-mail as the queries read it now, and the join they read it through before. */
const EMAIL = '(SELECT m.email FROM members m WHERE m.id = l.member_id)';
const joined = (query: string, join: 'JOIN' | 'CROSS JOIN') => {
  const before = query
    .replace(EMAIL, 'm.email')
    .replace('FROM leads l', `FROM leads l ${join} members m ON m.id = l.member_id`);
  if (before === query) throw new Error('the query no longer reads the e-mail by a look-up');
  return before;
};
const queries = {
  lastOfMember: [LEAD_QUERIES.lastOfMember, [1, 1]],
  lastOfTeam: [LEAD_QUERIES.lastOfTeam, [1]],
} as const;

function microseconds(db: Database.Database, sql: string, params: readonly number[]): number {
  const stmt = db.prepare(sql).raw(true);
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) stmt.get(...params);
    rounds.push(((performance.now() - t0) / 2000) * 1000);
  }
  return median(rounds);
}

try {
  for (const [state, sql] of Object.entries(states)) {
    const file = asIs ? source : join(dir, 'copy.db');
    if (!asIs) copyFileSync(source, file);
    const db = new Database(file, { readonly: asIs });
    if (sql !== '') db.exec(sql);
    for (const [name, [query, params]] of Object.entries(queries)) {
      const now = microseconds(db, query, params);
      const plain = microseconds(db, joined(query, 'JOIN'), params);
      const cross = microseconds(db, joined(query, 'CROSS JOIN'), params);
      console.log(
        `${state}, ${name}: ${now.toFixed(1)} µs as is, ${plain.toFixed(1)} µs with a plain JOIN, ${cross.toFixed(1)} µs with a CROSS JOIN`,
      );
    }
    db.close();
    if (!asIs) for (const s of ['', '-wal', '-shm']) rmSync(`${file}${s}`, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
