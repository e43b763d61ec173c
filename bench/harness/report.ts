/**
 * The run's report: the targets table (the scenarios' rows with their verdicts), the reference
 * points measured alongside, the run's description, and bench/RESULTS.md for a full run.
 */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machine } from '../lib.js';
import { LOADGEN } from '../load.js';
import {
  ALL,
  ENGINES,
  IMPORT_LEADS,
  IMPORTED_AT_MOST,
  MAIN,
  MEMBERS,
  ROUNDS,
  SCENARIOS,
  SECONDS,
  SIZES,
  SMALLEST,
  SMOKE,
} from './config.js';
import { f1, f2, f3, int, med, type Row, samples } from './figures.js';
import type { Served } from './servers.js';

const git = (args: string) => execSync(`git ${args}`, { encoding: 'utf8' }).trim();
/** The code measured: HEAD when the run starts, and whether src/ differed from it. */
const START_COMMIT = git('rev-parse --short HEAD');
const START_DIRTY = git('status --porcelain -- src') !== '';
/** The 1, 5 and 15-minute load averages (`uptime`'s). */
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
const loadAtStart = loadAverage();

function references(served: Served[], more: string[]): string[] {
  const bare = med('bare.rps');
  const has = (name: string) => samples.has(name);
  const lines = [
    '| reference | figure | ratio |',
    '|---|---|---|',
    ...(has('bare.rps') ? [`| bare node:http, constant ~1 KB JSON array | ${int(bare)} req/s | 1 |`] : []),
    ...(has('samework.rps')
      ? [
          `| node:http doing getLastLead's work, the key read and hashed on every request (bench/reference-ideal.ts in mode \`every\`: key look-up and hash check, the query, the v1 body), SQLite ${MAIN} | ${int(med('samework.rps'))} req/s | ${f2(med('samework.rps') / bare)} × bare |`,
        ]
      : []),
    ...more,
    ...(has(`json-server.${SMALLEST}.rps`)
      ? [
          `| json-server 0.17.4, the same ${SMALLEST} leads, member's newest (\`?userId=1&_sort=epoch&_order=desc&_limit=1\`) | ${int(med(`json-server.${SMALLEST}.rps`))} req/s | ${f3(med(`json-server.${SMALLEST}.rps`) / bare)} × bare; leadline SQLite ${SMALLEST} getLastLead = ${f2(med(`last.c10.sqlite.${SMALLEST}.rps`) / med(`json-server.${SMALLEST}.rps`))} × json-server |`,
        ]
      : []),
  ];
  for (const s of served) {
    const tag = `${s.engine}.${s.size}`;
    if (has(`rawdriver.${tag}.qps`))
      lines.push(
        `| raw driver, getLastLead's query in-process (${s.engine === 'sqlite' ? 'better-sqlite3 .get()' : 'postgres.js, 10 concurrent'}), ${s.engine} ${s.size} | ${int(med(`rawdriver.${tag}.qps`))} queries/s | leadline getLastLead = ${f2(med(`last.c10.${tag}.rps`) / med(`rawdriver.${tag}.qps`))} × raw |`,
      );
  }
  for (const s of served) {
    const tag = `${s.engine}.${s.size}`;
    lines.push(
      `| leadline ${s.engine} ${s.size}: getLastLead c10 / c1 p50 / team p50 / subteam p50 / search p50 | ${int(med(`last.c10.${tag}.rps`))} req/s; ${f3(med(`last.c1.${tag}.p50`))} / ${f3(med(`team.c1.${tag}.p50`))} / ${f3(med(`subteam.c1.${tag}.p50`))} / ${f3(med(`search.c1.${tag}.p50`))} ms | ${f2(med(`last.c10.${tag}.rps`) / bare)} × bare |`,
    );
    const imp = samples.get(`setup.import.${tag}`)?.[0];
    const imported = Math.min(s.size, IMPORTED_AT_MOST);
    if (imp !== undefined)
      lines.push(
        `| setup import of ${imported} leads, ${s.engine} (one run) | ${f1(imp)} s | ${int(imported / imp)} leads/s |`,
      );
    const grown = samples.get(`setup.grow.${tag}`)?.[0];
    if (grown !== undefined)
      lines.push(
        `| setup copy to ${s.size} leads in SQL (bench/grow.ts), ${s.engine} (one run) | ${f1(grown)} s | ${int((s.size - imported) / grown)} leads/s |`,
      );
  }
  return lines;
}

/** The report's text; throws if a target has no number (what the smoke run checks). */
export function report(
  rs: Row[],
  served: Served[],
  bounds: { end: number; count: number },
  seconds: number,
  more: string[] = [],
): string {
  const verdict = (r: Row) =>
    !Number.isFinite(r.target)
      ? '—'
      : (r.sense === 'le' ? r.measured <= r.target : r.measured >= r.target)
        ? 'met'
        : '**missed**';
  const table = [
    '| | target | measured | ratio | verdict | figures (medians) |',
    '|---|---|---|---|---|---|',
    ...rs.map(
      (r) =>
        `| ${r.id} | ${r.what} | ${Number.isFinite(r.target) ? `${r.sense === 'le' ? '≤' : '≥'} ${r.target}` : '—'} | ${f2(r.measured)} | ${verdict(r)} | ${r.detail} |`,
    ),
  ];
  const missing = rs.filter((r) => !Number.isFinite(r.measured));
  if (missing.length > 0)
    throw new Error(`scenarios without a number: ${missing.map((r) => `${r.id} ${r.what}`).join('; ')}`);
  const knobs = [
    'BENCH_10M',
    'BENCH_SIZES',
    'BENCH_IMPORTED_AT_MOST',
    'BENCH_ENGINES',
    'BENCH_SCENARIOS',
    'BENCH_ROUNDS',
    'BENCH_SECONDS',
  ]
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]} `)
    .join('');
  const cmd = `${knobs}${SMOKE ? 'npm run bench:smoke' : 'npm run bench'}`;
  const endCommit = git('rev-parse --short HEAD');
  const code =
    `Code measured: commit ${START_COMMIT}${START_DIRTY ? ' with uncommitted changes in src/' : ''}, compiled at the start of the run` +
    (endCommit === START_COMMIT
      ? '.'
      : `; HEAD moved to ${endCommit} during the run (servers started later may run newer dist/).`);
  return [
    `Machine: ${machine()}.`,
    code,
    `Command: \`${cmd}\` — sizes ${SIZES.join(', ')} leads (one team of ${MEMBERS} members), engines ${ENGINES.join(', ')}, ${ROUNDS} alternated rounds, ${SECONDS} s per load, load generator ${LOADGEN} on CPU 1, servers pinned to CPU 0; ${ALL ? `P3 range ${bounds.count} leads; P5 ${IMPORT_LEADS} leads; ` : `targets ${[...SCENARIOS].join(', ')} only; `}${seconds} s in all.`,
    `Load average (1, 5, 15 min, as \`uptime\`): ${loadAtStart} at the start, ${loadAverage()} at the end (2-core machine shared with other runs: compare ratios within this run, not absolute figures across runs).`,
    '',
    '## Targets',
    '',
    ...table,
    '',
    '## Reference points (same run)',
    '',
    ...references(served, more),
    '',
  ].join('\n');
}

/** bench/RESULTS.md: the report, then the profiled causes of the misses (bench/misses.md, by hand). */
export function writeResults(text: string): void {
  const misses = readFileSync(fileURLToPath(new URL('../misses.md', import.meta.url)), 'utf8');
  const results = [
    '# Benchmark results (issue 6)',
    '',
    'Written by `npm run bench`: the two tables are from the one run described here; the sections after them (bench/misses.md, written by hand) cite profiles, experiments and earlier runs, each labelled.',
    '',
    text,
    misses,
  ].join('\n');
  writeFileSync(fileURLToPath(new URL('../RESULTS.md', import.meta.url)), results);
}
