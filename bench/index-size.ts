/**
 * Issue 20 §3: an SQLite store's file size per N seeded leads, and the v2 text search's speed,
 * for the code of a git revision ("before") and of this tree ("now") side by side — plus the
 * "before" store upgraded in place by this tree's migrations ("upgraded"), the path an operator
 * takes. The "before" code is `git archive`d into a temporary directory and imported from there,
 * so one process measures both with the same machine state.
 *
 *   node --import tsx bench/index-size.ts --before <rev> [--leads 100000] [--teams 5]
 *     [--members 10] [--rounds 101]
 *
 * Sizes are after a WAL checkpoint and again after VACUUM (an upgrade leaves the old index's
 * pages free in the file until a VACUUM). Search times: the store's `search` in process (no
 * HTTP), first page of 100 in one team, each query `rounds` times, variants interleaved; medians.
 */
import { execSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { fold } from '../src/domain/lead-text.js';
import type { LeadFilter, Store, TextClause } from '../src/domain/store.js';

const { values: opt } = parseArgs({
  options: {
    before: { type: 'string' },
    leads: { type: 'string', default: '100000' },
    teams: { type: 'string', default: '5' },
    members: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '101' },
  },
});
if (opt.before === undefined) throw new Error('--before <git revision> is required');
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const work = mkdtempSync(join(tmpdir(), 'leadline-index-size-'));

/** The tree of `rev`: its src/ and package.json, resolving packages through this tree's node_modules. */
function checkout(rev: string): string {
  const root = join(work, 'before');
  mkdirSync(root);
  execSync(`git archive ${rev} src package.json | tar -x -C ${root}`, { cwd: here });
  symlinkSync(join(here, 'node_modules'), join(root, 'node_modules'));
  return root;
}

interface Code {
  open: (path: string) => Store;
  seed: (store: Store) => Promise<unknown>;
}

async function code(root: string): Promise<Code> {
  const { SqliteStore } = await import(join(root, 'src/storage/sqlite/sqlite-store.ts'));
  const { seedStore } = await import(join(root, 'src/cli/seed.ts'));
  return {
    open: (path) => SqliteStore.open(path),
    seed: (store) =>
      seedStore(store, {
        teams: Number(opt.teams),
        membersPerTeam: Number(opt.members),
        leads: Number(opt.leads),
        seed: 'leadline',
      }),
  };
}

const MB = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** File size after a checkpoint, then after VACUUM, and where the pages went (dbstat). */
function sizes(path: string): { checkpointed: number; vacuumed: number; parts: Record<string, number> } {
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointed = statSync(path).size;
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const vacuumed = statSync(path).size;
  const rows = db
    .prepare(`SELECT CASE WHEN name LIKE 'lead_text%' THEN 'lead_text (FTS5)'
        WHEN name = 'leads' OR name LIKE 'leads_%' OR name LIKE 'sqlite_autoindex_leads%' THEN 'leads + indexes'
        ELSE 'other' END AS part, sum(pgsize) AS bytes FROM dbstat GROUP BY part`)
    .all() as { part: string; bytes: number }[];
  db.close();
  return { checkpointed, vacuumed, parts: Object.fromEntries(rows.map((r) => [r.part, r.bytes])) };
}

/** Query values taken from the seeded data (deterministic for the seed), folded as the API folds them. */
function queries(path: string): { name: string; teamId: number; text: TextClause[] }[] {
  const db = new Database(path, { readonly: true });
  const teamId = (db.prepare('SELECT min(id) AS id FROM teams').get() as { id: number }).id;
  // A lead with every field the queries use, so none of them is an empty value.
  const full = `team_id = ? AND coalesce(json_extract(fields, '$.company'), '') <> ''
    AND coalesce(json_extract(fields, '$.jobTitle'), '') <> '' AND coalesce(json_extract(fields, '$.email'), '') <> ''`;
  const count = (db.prepare(`SELECT count(*) AS n FROM leads WHERE ${full}`).get(teamId) as { n: number }).n;
  const pick = (at: number): Record<string, string> =>
    JSON.parse(
      (
        db
          .prepare(`SELECT fields FROM leads WHERE ${full} ORDER BY seq LIMIT 1 OFFSET ?`)
          .get(teamId, Math.floor(count * at)) as { fields: string }
      ).fields,
    );
  const a = pick(0.3);
  const b = pick(0.7);
  db.close();
  const name = fold(a.name ?? '');
  const last = name.split(' ').at(-1) ?? '';
  const typo = `${last.slice(0, 1)}${last.slice(2, 3)}${last.slice(1, 2)}${last.slice(3)}`; // swap 2nd/3rd letters
  const all: TextClause['fields'] = ['fullName', 'email', 'companyName', 'jobTitle', 'note'];
  const q = (n: string, text: TextClause[]) => ({ name: n, teamId, text });
  return [
    q(`FUZZY fullName "${typo}"`, [{ fields: ['fullName'], value: typo, match: 'FUZZY' }]),
    q(`FUZZY companyName "${fold(b.company ?? '')}"`, [
      { fields: ['companyName'], value: fold(b.company ?? ''), match: 'FUZZY' },
    ]),
    q(`FUZZY 5 fields "${name}"`, [{ fields: all, value: name, match: 'FUZZY' }]),
    q('EXACT email (one lead)', [{ fields: ['email'], value: fold(a.email ?? ''), match: 'EXACT' }]),
    q(`EXACT fullName "${name}"`, [{ fields: ['fullName'], value: name, match: 'EXACT' }]),
    q(`EXACT jobTitle "${fold(b.jobTitle ?? '')}"`, [
      { fields: ['jobTitle'], value: fold(b.jobTitle ?? ''), match: 'EXACT' },
    ]),
  ];
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const before = await code(checkout(opt.before!));
  const now = await code(here);
  const paths = { before: join(work, 'before.db'), now: join(work, 'now.db'), upgraded: join(work, 'up.db') };
  const seedTimes: Record<string, number> = {};
  for (const [variant, c] of [
    ['before', before],
    ['now', now],
  ] as const) {
    const store = c.open(paths[variant]);
    await store.migrate();
    const t0 = performance.now();
    await c.seed(store);
    seedTimes[variant] = performance.now() - t0;
    await store.close();
  }
  const size: Record<string, ReturnType<typeof sizes>> = {
    before: sizes(paths.before),
    now: sizes(paths.now),
  };
  copyFileSync(paths.before, paths.upgraded);
  const up = now.open(paths.upgraded);
  const t0 = performance.now();
  const report = await up.migrate();
  const migrateMs = performance.now() - t0;
  await up.close();
  size.upgraded = sizes(paths.upgraded);

  const qs = queries(paths.before);
  const stores = {
    before: before.open(paths.before),
    now: now.open(paths.now),
    upgraded: now.open(paths.upgraded),
  };
  const times: Record<string, Record<string, number[]>> = { before: {}, now: {}, upgraded: {} };
  const answers: Record<string, Record<string, string>> = { before: {}, now: {}, upgraded: {} };
  for (let r = 0; r < Number(opt.rounds); r++) {
    for (const q of qs) {
      const filter: LeadFilter = {
        scope: { teamId: q.teamId },
        start: null,
        end: null,
        sources: null,
        hasEmail: null,
        text: q.text,
      };
      for (const [variant, store] of Object.entries(stores)) {
        const s = performance.now();
        const page = await store.leads.search(filter, 'DESC', null, 100);
        const took = performance.now() - s;
        times[variant]![q.name] = [...(times[variant]![q.name] ?? []), took];
        answers[variant]![q.name] = page.map((l) => `${l.userId}/${l.id}`).join(',');
      }
    }
  }
  for (const store of Object.values(stores)) await store.close();

  const n = Number(opt.leads);
  const per100k = (bytes: number): string => MB((bytes * 100_000) / n);
  console.log(
    `${n} leads (${opt.teams} teams × ${opt.members} members, seed "leadline"); before = ${opt.before}`,
  );
  console.log(
    `upgrade of the before store: ${report.applied.join(', ')} in ${(migrateMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `seed: before ${(seedTimes.before! / 1000).toFixed(1)} s, now ${(seedTimes.now! / 1000).toFixed(1)} s\n`,
  );
  console.log(
    '| store | file after checkpoint (MB) | after VACUUM (MB) | per 100k leads (MB) | leads + indexes | lead_text (FTS5) | other |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [variant, s] of Object.entries(size)) {
    const p = (k: string): string => MB(s.parts[k] ?? 0);
    console.log(
      `| ${variant} | ${MB(s.checkpointed)} | ${MB(s.vacuumed)} | ${per100k(s.vacuumed)} | ${p('leads + indexes')} | ${p('lead_text (FTS5)')} | ${p('other')} |`,
    );
  }
  console.log(
    '\n| query (team of ~' +
      Math.round(n / Number(opt.teams)) +
      ' leads, page of 100) | hits | before ms | now ms | upgraded ms | same answer |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const q of qs) {
    const ms = (v: string): string => median(times[v]![q.name]!).toFixed(3);
    const same =
      answers.before![q.name] === answers.now![q.name] && answers.now![q.name] === answers.upgraded![q.name];
    const hits = answers.now![q.name] === '' ? 0 : answers.now![q.name]!.split(',').length;
    console.log(
      `| ${q.name} | ${hits} | ${ms('before')} | ${ms('now')} | ${ms('upgraded')} | ${same ? 'yes' : '**no**'} |`,
    );
  }
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
