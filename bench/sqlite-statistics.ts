/**
 * What planner statistics do to the v1 reads on SQLite, in process (the figures in CHANGELOG and
 * bench/misses.md): getLastLead's and getLastLeadTeam's queries timed on copies of one store
 * without statistics, after ANALYZE (with this build's STAT4 samples), and after ANALYZE without
 * the samples (as SqliteStore.migrate leaves a store) — each as it is (the collector's e-mail by
 * a look-up per row) and in the two forms it had before: a plain JOIN to `members` (SQLite may
 * then reorder the loops) and a CROSS JOIN (it keeps `leads` outside, but may build a Bloom
 * filter over `members` on every call when a member has many leads); and getLastLeadSubTeam's
 * window walk as it is and with the EXISTS membership test it had before (a Bloom filter of the
 * subteam per call).
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
import { LEAD_QUERIES } from '../src/storage/sqlite/leads.js';
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
/** recentOfSubteam's membership test now, and as it was written before. */
const MEMBERSHIP = `(SELECT sm.is_member FROM subteam_members sm
      WHERE sm.team_id = l.team_id AND sm.subteam_id = ? AND sm.member_id = l.member_id) = 1`;
const EXISTS_MEMBERSHIP = `EXISTS (SELECT 1 FROM subteam_members sm
      WHERE sm.team_id = l.team_id AND sm.subteam_id = ? AND sm.member_id = l.member_id AND sm.is_member = 1)`;
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
    // getLastLeadSubTeam's window walk (subteam 1) against its EXISTS form before f09f350, for
    // which SQLite built a Bloom filter of the whole subteam on every call.
    const bound = db.prepare(LEAD_QUERIES.recentWindow).raw(true).get(1) as [number, number] | undefined;
    const walk = [1, bound?.[0] ?? Number.MIN_SAFE_INTEGER, bound?.[1] ?? 0, 1];
    const exists = LEAD_QUERIES.recentOfSubteam.replace(MEMBERSHIP, EXISTS_MEMBERSHIP);
    if (exists === LEAD_QUERIES.recentOfSubteam)
      throw new Error('recentOfSubteam changed its membership test');
    console.log(
      `${state}, recentOfSubteam: ${microseconds(db, LEAD_QUERIES.recentOfSubteam, walk).toFixed(1)} µs as is, ${microseconds(db, exists, walk).toFixed(1)} µs with EXISTS`,
    );
    db.close();
    if (!asIs) for (const s of ['', '-wal', '-shm']) rmSync(`${file}${s}`, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
