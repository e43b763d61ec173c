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
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { LeadFilter, TextClause } from '../src/leads/leads.port.js';
import { fold } from '../src/leads/text.js';
import { checkout, code, MB, type Sizes, sizes } from './index-size-stores.js';

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

/** Query values taken from the seeded data (deterministic for the seed), folded as the API folds them. */
interface Query {
  name: string;
  teamId: number;
  text: TextClause[];
}

function queries(path: string): { teamLeads: number; list: Query[] } {
  const db = new Database(path, { readonly: true });
  const teamId = db.prepare('SELECT min(id) FROM teams').pluck().get() as number;
  const teamLeads = db.prepare('SELECT count(*) FROM leads WHERE team_id = ?').pluck().get(teamId) as number;
  // Leads with every field the queries use, so none of them is an empty value.
  const full = `team_id = ? AND coalesce(json_extract(fields, '$.company'), '') <> ''
    AND coalesce(json_extract(fields, '$.jobTitle'), '') <> '' AND coalesce(json_extract(fields, '$.email'), '') <> ''`;
  const count = db.prepare(`SELECT count(*) FROM leads WHERE ${full}`).pluck().get(teamId) as number;
  const pick = db.prepare(`SELECT fields FROM leads WHERE ${full} ORDER BY seq LIMIT 1 OFFSET ?`).pluck();
  const lead = (at: number): Record<string, string> =>
    JSON.parse(pick.get(teamId, Math.floor(count * at)) as string);
  const [a, b] = [lead(0.3), lead(0.7)];
  db.close();
  const name = fold(a.name ?? '');
  const last = name.split(' ').at(-1) ?? '';
  const typo = `${last.slice(0, 1)}${last.slice(2, 3)}${last.slice(1, 2)}${last.slice(3)}`; // 2nd/3rd letters swapped
  const q = (
    match: TextClause['match'],
    fields: TextClause['fields'],
    value: string,
    label = `"${value}"`,
  ): Query => ({
    name: `${match} ${fields.length > 1 ? `${fields.length} fields` : fields[0]} ${label}`,
    teamId,
    text: [{ match, fields, value }],
  });
  return {
    teamLeads,
    list: [
      q('FUZZY', ['fullName'], typo),
      q('FUZZY', ['companyName'], fold(b.company ?? '')),
      q('FUZZY', ['fullName', 'email', 'companyName', 'jobTitle', 'note'], name),
      q('EXACT', ['email'], fold(a.email ?? ''), '(one lead)'),
      q('EXACT', ['fullName'], name),
      q('EXACT', ['jobTitle'], fold(b.jobTitle ?? '')),
    ],
  };
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

type Variant = 'before' | 'now' | 'upgraded';
const VARIANTS: Variant[] = ['before', 'now', 'upgraded'];

async function main(): Promise<void> {
  const seed = { teams: Number(opt.teams), membersPerTeam: Number(opt.members), leads: Number(opt.leads) };
  const before = await code(checkout(opt.before!, here, join(work, 'before')), seed);
  const now = await code(here, seed);
  const paths = { before: join(work, 'before.db'), now: join(work, 'now.db'), upgraded: join(work, 'up.db') };
  for (const [variant, c] of [['before', before] as const, ['now', now] as const]) {
    const store = c.open(paths[variant]);
    await store.migrate();
    await c.seed(store);
    await store.close();
  }
  const size = { before: sizes(paths.before), now: sizes(paths.now) } as Record<Variant, Sizes>;
  copyFileSync(paths.before, paths.upgraded);
  const up = now.open(paths.upgraded);
  const t0 = performance.now();
  const report = await up.migrate();
  const migrateS = ((performance.now() - t0) / 1000).toFixed(1);
  await up.close();
  size.upgraded = sizes(paths.upgraded);

  const { teamLeads, list } = queries(paths.before);
  const stores = {
    before: before.open(paths.before),
    now: now.open(paths.now),
    upgraded: now.open(paths.upgraded),
  };
  const times = new Map<string, number[]>();
  const answers = new Map<string, string>();
  for (let r = 0; r < Number(opt.rounds); r++) {
    for (const q of list) {
      const filter: LeadFilter = {
        scope: { teamId: q.teamId },
        start: null,
        end: null,
        sources: null,
        hasEmail: null,
        text: q.text,
      };
      for (const v of VARIANTS) {
        const s = performance.now();
        const page = await stores[v].leads.search(filter, 'DESC', null, 100);
        times.set(`${v} ${q.name}`, [...(times.get(`${v} ${q.name}`) ?? []), performance.now() - s]);
        answers.set(`${v} ${q.name}`, page.map((l) => `${l.userId}/${l.id}`).join(','));
      }
    }
  }
  for (const v of VARIANTS) await stores[v].close();

  const n = Number(opt.leads);
  const out = [
    `${n} leads (${opt.teams} teams × ${opt.members} members, seed "leadline"); before = ${opt.before}`,
    `upgrade of the before store: ${report.applied.join(', ')} in ${migrateS} s\n`,
    '| store | after checkpoint (MB) | after VACUUM (MB) | per 100k leads | leads + indexes | lead_text (FTS5) | other |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const v of VARIANTS) {
    const { checkpointed, vacuumed, parts } = size[v];
    const p = (k: string): string => MB(parts[k] ?? 0);
    out.push(
      `| ${v} | ${MB(checkpointed)} | ${MB(vacuumed)} | ${MB((vacuumed * 100_000) / n)} | ${p('leads + indexes')} | ${p('lead_text (FTS5)')} | ${p('other')} |`,
    );
  }
  out.push(
    `\n| query (team of ${teamLeads} leads, page of 100) | hits | before ms | now ms | upgraded ms | same answer |`,
  );
  out.push('|---|---|---|---|---|---|');
  for (const q of list) {
    const ms = (v: Variant): string => median(times.get(`${v} ${q.name}`)!).toFixed(3);
    const got = VARIANTS.map((v) => answers.get(`${v} ${q.name}`));
    const hits = got[1] === '' ? 0 : got[1]!.split(',').length;
    const same = got.every((a) => a === got[0]) ? 'yes' : '**no**';
    out.push(`| ${q.name} | ${hits} | ${ms('before')} | ${ms('now')} | ${ms('upgraded')} | ${same} |`);
  }
  console.log(out.join('\n'));
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
