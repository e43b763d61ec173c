/**
 * What planner statistics do to the v1 reads on SQLite, in process (the figures in CHANGELOG and
 * bench/misses.md): getLastLead's and getLastLeadTeam's queries timed on copies of one store
 * without statistics, after ANALYZE (with this build's STAT4 samples), and after ANALYZE without
 * the samples (as SqliteStore.migrate leaves a store), each with the queries as they are and with
 * the plain JOIN they had before (SQLite may then reorder the join).
 *
 *   node bin/leadline.js --db /tmp/s.db seed --teams 1 --members 1000 --leads 100000 --seed bench
 *   node --import tsx bench/sqlite-statistics.ts /tmp/s.db
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LEAD_QUERIES } from '../src/storage/sqlite/sqlite-leads.js';
import { median } from './lib.js';

const source = process.argv[2];
if (source === undefined) throw new Error('usage: bench/sqlite-statistics.ts <seeded SQLite store>');
const dir = mkdtempSync(join(tmpdir(), 'leadline-stats-'));
const states = {
  'no statistics': '',
  'ANALYZE (with STAT4 samples)': 'ANALYZE',
  'ANALYZE, samples deleted': 'ANALYZE; DELETE FROM sqlite_stat4; ANALYZE sqlite_schema',
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
    const file = join(dir, 'copy.db');
    copyFileSync(source, file);
    const db = new Database(file);
    if (sql !== '') db.exec(sql);
    for (const [name, [query, params]] of Object.entries(queries)) {
      const now = microseconds(db, query, params);
      const before = microseconds(db, query.replaceAll('CROSS JOIN', 'JOIN'), params);
      console.log(`${state}, ${name}: ${now.toFixed(1)} µs as is, ${before.toFixed(1)} µs with a plain JOIN`);
    }
    db.close();
    for (const s of ['', '-wal', '-shm']) rmSync(`${file}${s}`, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
