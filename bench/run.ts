/**
 * Issue 6: the performance targets P1–P6, measured side by side in one run, as ratios.
 *
 *   npm run bench          10k and 1M leads on SQLite and PostgreSQL (BENCH_10M=1 adds 10M)
 *   npm run bench:smoke    the same code at 2k leads and 1-second loads; checks every scenario
 *                          produced a number (CI), writes nothing
 *
 * leadline and the reference servers run pinned to CPU 0 (taskset), this process and the load
 * generator (wrk, else autocannon) on CPU 1. Every figure is the median of BENCH_ROUNDS rounds
 * (default 3) that alternate all targets (order reversed every other round).
 *
 * Knobs: BENCH_SIZES=10000,100000 (override the sizes), BENCH_SECONDS (per load, default 5),
 * BENCH_ROUNDS, BENCH_ENGINES=sqlite,postgres, BENCH_IMPORT_LEADS (P5, default 100000),
 * BENCH_PROFILE=1 (servers run with --cpu-prof into BENCH_PROFILE_DIR, default $TMPDIR/leadline-profiles), BENCH_LOADGEN=autocannon,
 * BENCH_IMPORTED_AT_MOST (default 1000000: larger sizes are imported up to it, then copied in SQL),
 * BENCH_BROWNOUT_AHEAD=1 (a v1 brownout 5 days ahead of the bench key: every v1 answer carries Warning),
 * BENCH_SCENARIOS=p1,p6 (a subset of p1,p2,p3a,p3bc,p4,p5,p6; RESULTS.md is then not written),
 * BENCH_INSTRUCTIONS=0 (P1 runs no instruction count: bench/scenarios/p1-instructions.ts, valgrind;
 * =1 makes a smoke run count too, 200 requests a round),
 * LEADLINE_TEST_DATABASE_URL (PostgreSQL, default postgres://postgres@127.0.0.1:5432/test),
 * LEADLINE_TEST_REDIS_URL (P1's leadline with Redis, default redis://127.0.0.1:6379).
 *
 * Issue 16's ideal references (bench/ideal.ts) run beside leadline on the same stores: the ideal
 * data path on node:http and the same work on Fastify, for P1 (getLastLead, MAIN), P3c (the
 * team's whole range, MAIN, node:http only) and P6 (the v2 search page, LARGEST); P1 also starts leadline on PostgreSQL with exact quota counters
 * (LEADLINE_RATE_SYNC_MS=0) and with REDIS_URL.
 *
 * This file is the runner: it prepares the stores, collects each scenario's jobs in one order,
 * runs the rounds and writes the report. One file per target in bench/scenarios/ (its jobs and
 * its rows of the table); what they share (knobs, stores, servers, jobs, report) in bench/harness/.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  ALL,
  ENGINES,
  IMPORTED_AT_MOST,
  LARGEST,
  log,
  MAIN,
  PROFILE,
  PROFILE_DIR,
  ROUNDS,
  SCENARIOS,
  type Scenario,
  SECONDS,
  SIZES,
  SMALLEST,
  SMOKE,
  WRITE_RESULTS,
} from './harness/config.js';
import { startIdeals } from './harness/ideals.js';
import { type Job, loadJob, runRounds, warmUp } from './harness/jobs.js';
import { report, writeResults } from './harness/report.js';
import { jsonServer, type Served, serve, stopServers } from './harness/servers.js';
import { dir, prepare, removeStores, writeSeed } from './harness/stores.js';
import { LOADGEN } from './load.js';
import * as p1i from './scenarios/p1-instructions.js';
import * as p1 from './scenarios/p1-last-lead-throughput.js';
import * as p2 from './scenarios/p2-last-lead-by-size.js';
import * as p3a from './scenarios/p3a-range-read.js';
import * as p3bc from './scenarios/p3bc-big-answer.js';
import * as p4 from './scenarios/p4-team-last-lead.js';
import * as p5 from './scenarios/p5-import.js';
import * as p6 from './scenarios/p6-v2-search.js';

const JSON_SERVER_AT_MOST = 100_000;

/** One leadline server per size and engine, each on a store of its own. */
async function serveAll(): Promise<Served[]> {
  const served: Served[] = [];
  for (const size of SIZES) {
    const imported = Math.min(size, IMPORTED_AT_MOST);
    if (size % imported !== 0) throw new Error(`size ${size} is not a multiple of ${imported}`);
    const file = join(dir, `leads-${imported}.ndjson`);
    await writeSeed(file, imported);
    for (const engine of ENGINES) served.push(await serve(await prepare(engine, size, file, imported)));
    rmSync(file, { force: true });
  }
  return served;
}

async function main(): Promise<string> {
  const t0 = Date.now();
  // autocannon rounds latencies to whole milliseconds, which leaves the latency ratios (P2, P4,
  // P6) without a number: a full run without wrk used to fail only at its report, an hour in.
  const latencies = (['p2', 'p4', 'p6'] as const).some((s) => SCENARIOS.has(s));
  if (!SMOKE && latencies && LOADGEN !== 'wrk' && process.env.BENCH_LOADGEN !== 'autocannon') {
    throw new Error('wrk is not installed (apt-get install wrk): P2, P4 and P6 need its µs latencies');
  }
  // The servers run dist/ (bin/leadline.js): compile it from the src/ measured.
  if (!SMOKE) execSync('npm run build', { stdio: 'ignore' });
  log(
    `sizes ${SIZES.join(', ')}; engines ${ENGINES.join(', ')}; ${ROUNDS} rounds of ${SECONDS} s; ${LOADGEN}`,
  );
  if (PROFILE) mkdirSync(PROFILE_DIR, { recursive: true });

  const has = (s: Scenario) => SCENARIOS.has(s);
  if (has('p5')) await p5.importScenario();

  // P5 works on stores of its own: a run of it alone builds and serves none.
  const serving = (['p1', 'p2', 'p3a', 'p3bc', 'p4', 'p6'] as const).some(has);
  const served = serving ? await serveAll() : [];
  const refs = has('p1') ? await p1.startReferences(served) : null;
  await startIdeals(served, [...(has('p1') || has('p3bc') ? [MAIN] : []), ...(has('p6') ? [LARGEST] : [])]);
  // json-server keeps its data in one JSON file and scans it per request: a reference for small
  // stores only (a P1 run at 1M alone would hand it 400 MB and time out).
  const js =
    has('p1') && SMALLEST <= JSON_SERVER_AT_MOST
      ? await jsonServer(served.find((s) => s.size === SMALLEST)!)
      : null;
  const main = served.filter((s) => s.size === MAIN);
  const bounds = has('p3a') ? await p3a.rangeBound(main[0]!) : { end: Number.NaN, count: 0 };
  if (has('p3a')) log(`P3 range: ${bounds.count} leads (epoch < ${bounds.end})`);

  const jobs: Job[] = [];
  if (refs !== null) jobs.push(...p1.referenceJobs(refs));
  if (js !== null)
    jobs.push(
      loadJob(
        `json-server.${SMALLEST}`,
        { url: `${js.url}/leads?userId=1&_sort=epoch&_order=desc&_limit=1` },
        10,
      ),
    );
  if (has('p6')) for (const engine of ENGINES) jobs.push(...p6.referenceJobs(engine));
  if (has('p3bc')) for (const engine of ENGINES) jobs.push(p3bc.idealBigAnswerJob(engine));
  for (const s of served) {
    if (has('p1')) jobs.push(p1.lastLeadJob(s));
    if (has('p2')) jobs.push(p2.lastLeadLatencyJob(s));
    if (has('p4')) jobs.push(...p4.teamJobs(s));
    if (has('p6')) jobs.push(...p6.searchJobs(s));
    if (has('p1')) jobs.push(p1.rawDriverJob(s));
  }
  for (const s of main) {
    if (has('p3a')) jobs.push(...p3a.rangeJobs(s, bounds));
    if (has('p3bc')) jobs.push(p3bc.bigAnswerJob(s));
  }

  await warmUp(jobs);
  await runRounds(jobs, t0);
  const counted = main.find((s) => s.engine === 'sqlite' && s.variant === undefined);
  if (has('p1') && p1i.COUNTED && counted !== undefined) await p1i.countInstructions(counted);
  const scenarios = [
    ['p1', p1],
    ['p1', p1i],
    ['p2', p2],
    ['p3a', p3a],
    ['p3bc', p3bc],
    ['p4', p4],
    ['p5', p5],
    ['p6', p6],
  ] as const;
  const rows = ENGINES.flatMap((engine) =>
    scenarios.filter(([id]) => has(id)).flatMap(([, scenario]) => scenario.rows(engine)),
  );
  const more = [...(has('p1') ? p1.referenceLines() : []), ...(has('p6') ? p6.referenceLines() : [])];
  return report(rows, served, bounds, Math.round((Date.now() - t0) / 1000), more);
}

let exitCode = 0;
try {
  const text = await main();
  process.stdout.write(`${text}\n`);
  // A subset of the targets is no full table: RESULTS.md keeps the last full run.
  if (WRITE_RESULTS && ALL) writeResults(text);
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  exitCode = 1;
} finally {
  await stopServers();
  await removeStores();
}
process.exit(exitCode);
