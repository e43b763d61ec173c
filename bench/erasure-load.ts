/**
 * Issue 40's erasure bars: erasing the persons and the 10,000 e-mail-free leads of
 * bench/erasure-load-data.ts's store (1M leads) over HTTP, `POST /api/pub/v2/erasures` against a
 * running `leadline serve` (pinned to CPU 0; BENCH_SERVER_CPUS=0,1 frees it), while a client on CPU 1 sends v1 getLastLead at a
 * fixed rate (every 5 ms, kept-alive connections); its p99 during each erasure window ÷ its p99 over the
 * probes sent just before, on the same server and data. Then, in process on the same store, the
 * use case alone, its erasure and its reclaim timed apart. Prints JSON lines and a summary.
 *
 *   taskset -c 1 node --import tsx bench/erasure-load.ts [sqlite|postgres]...   (both by default)
 *
 * The rounds begin once the server has dispatched the import's events (one per lead: a million
 * on a fresh store: harness/servers.ts `serve` waits for it) — before that, the probes met the
 * drain, not the erasures.
 * A round: 2 s of unloaded probes, PERSONS persons erased by e-mail back to back (one person is a
 * few milliseconds: too short a window for a p99), 2 s of unloaded probes, IDS e-mail-free leads
 * erased by id, 1,000 a request back to back (the most a request may name over HTTP). A window ends when the last erasure has answered and its reclaim is done (SQLite:
 * the WAL checkpoint runs before the answer; PostgreSQL: the VACUUMs the server runs after it,
 * seen in pg_stat_user_tables and pg_stat_progress_vacuum). Knobs: BENCH_LEADS (1,000,000), BENCH_ROUNDS (5),
 * BENCH_PERSONS (20 a round), BENCH_ERASE_IDS (10,000), BENCH_PROBE_EVERY_MS (5), BENCH_BUILD=0 (run
 * dist/ as it is), BENCH_SMOKE=1 (a small store, one round), BENCH_TRACE=1 (PostgreSQL: each window's
 * probes grouped by what the database ran while they were out, `byDbWork`: harness/db-activity.ts).
 */
import { execSync } from 'node:child_process';
import { Agent } from 'node:http';
import { join } from 'node:path';
import postgres from 'postgres';
import { createKey } from '../src/keys/create-key.js';
import { eraseData, reclaimAfterErasure } from '../src/privacy/erase.js';
import { MAX_ERASURE_IDS_OVER_HTTP } from '../src/schemas/privacy.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import { FREE_TEAM_ADMIN, personEmail, readIds, writeErasureSeed } from './erasure-load-data.js';
import { type Engine, log, SMOKE } from './harness/config.js';
import { DbActivity, type Group, type Probe } from './harness/db-activity.js';
import { serve, stopServers } from './harness/servers.js';
import { dir, prepare, removeStores, schemaName } from './harness/stores.js';
import { median } from './lib.js';
import { probeOk, quantile, type Req } from './load.js';

const env = process.env;
const LEADS = Number(env.BENCH_LEADS ?? (SMOKE ? 4_000 : 1_000_000));
const ROUNDS = Number(env.BENCH_ROUNDS ?? (SMOKE ? 1 : 5));
const PERSONS = Number(env.BENCH_PERSONS ?? (SMOKE ? 3 : 20));
const IDS = Number(env.BENCH_ERASE_IDS ?? (SMOKE ? 200 : 10_000));
/** Unloaded probes: this long before each window, at the same rate. */
/** Lead ids a request may name over HTTP (MAX_ERASURE_IDS_OVER_HTTP: the 64 KiB body limit). */
const PER_REQUEST = MAX_ERASURE_IDS_OVER_HTTP;
const UNLOADED_MS = SMOKE ? 500 : 2_000;
const EVERY_MS = Number(env.BENCH_PROBE_EVERY_MS ?? 5);
/** PostgreSQL: each window's probes also grouped by what the database ran meanwhile (harness/db-activity.ts). */
const TRACE = env.BENCH_TRACE === '1';
const engines = (process.argv.length > 2 ? process.argv.slice(2) : ['sqlite', 'postgres']) as Engine[];
// The rounds' sets, and one more for the in-process timings.
const SETS = ROUNDS + 1;

interface Window {
  p99: number;
  max: number;
  probes: number;
  /** Each erasure's answer time, ms. */
  answers: number[];
  ms: number;
  /** When the window began and ended (UTC, to the ms): to read beside bench/loop-delay.mjs's lines. */
  from: string;
  to: string;
  /** BENCH_TRACE=1: the probes by what the database ran while each was out. */
  byDbWork?: Record<string, Group>;
}

const clock = (): string => new Date().toISOString().slice(11, 23);

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** One getLastLead, timed from the moment it is sent to its last byte. */
const getLastLead = (last: Req): Promise<number> => probeOk(last, agent);

/**
 * Probes sent at a fixed rate (one every EVERY_MS, whether the ones before have answered or not:
 * a server that stalls is charged for every probe that waits, not one), until `until` resolves.
 */
async function probes(last: Req, until: Promise<unknown>): Promise<Probe[]> {
  let done = false;
  until.then(
    () => (done = true),
    () => (done = true),
  );
  const sent: Promise<Probe>[] = [];
  for (let next = performance.now(); !done; ) {
    const at = performance.now();
    sent.push(getLastLead(last).then((ms): Probe => [at, ms]));
    next += EVERY_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  return Promise.all(sent);
}

/** The probes' figures while `work` runs; the window ends when `work` resolves. */
async function during(
  last: Req,
  activity: DbActivity | null,
  work: () => Promise<number[]>,
): Promise<Window> {
  activity?.start();
  const t0 = performance.now();
  const from = clock();
  const w = work();
  const sent = await probes(last, w);
  const answers = await w;
  await activity?.stop();
  const times = sent.map(([, ms]) => ms);
  return {
    ...(activity === null ? {} : { byDbWork: activity.split(sent) }),
    p99: quantile(times, 0.99),
    max: Math.max(...times),
    probes: times.length,
    answers,
    ms: performance.now() - t0,
    from,
    to: clock(),
  };
}

async function unloaded(last: Req): Promise<number> {
  const sent = await probes(last, new Promise((r) => setTimeout(r, UNLOADED_MS)));
  return quantile(
    sent.map(([, ms]) => ms),
    0.99,
  );
}

const chunks = <T>(xs: T[], n: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

async function post(url: string, key: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return performance.now() - t0;
}

/**
 * PostgreSQL: resolves once the server's reclaims after the erasures are done: a VACUUM of the
 * erasure's last table has ended since `answered` (the last erasure was sent) and none of the
 * schema's tables is being vacuumed, twice 20 ms apart (the server runs one VACUUM at a time
 * and queues at most one more, which starts once no erasure has come for 250 ms: docs/privacy.md
 * "While an erasure runs").
 */
async function vacuumed(sql: postgres.Sql | null, schema: string, answered: Date): Promise<void> {
  if (sql === null) return;
  const t0 = Date.now();
  for (let quiet = 0; quiet < 2; ) {
    const [r] = await sql<{ done: boolean; running: number }[]>`SELECT
        coalesce((SELECT last_vacuum FROM pg_stat_user_tables
          WHERE schemaname = ${schema} AND relname = 'idempotency_keys') >= ${answered}, false) AS done,
        (SELECT count(*)::int FROM pg_stat_progress_vacuum p JOIN pg_class c ON c.oid = p.relid
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema}) AS running`;
    quiet = r!.done && r!.running === 0 ? quiet + 1 : 0;
    if (Date.now() - t0 > 300_000) throw new Error('the erasures’ VACUUMs did not finish in 5 min');
    await new Promise((res) => setTimeout(res, 20));
  }
}

async function benchEngine(engine: Engine): Promise<void> {
  const file = join(dir, `erasure-${LEADS}.ndjson`);
  await writeErasureSeed(file, LEADS, SETS, IDS, PERSONS);
  const t0 = performance.now();
  const p = await prepare(engine, LEADS, file, LEADS);
  const ids = await readIds(engine, p.where, SETS, IDS);
  const setupStore = engine === 'sqlite' ? SqliteStore.open(p.where) : PostgresStore.open(p.where);
  const freeKey = (await createKey(setupStore, { member: FREE_TEAM_ADMIN })).key;
  await setupStore.close();
  log(`${engine}: ${LEADS} leads ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const s = await serve(p);
  const erasures = `${s.server.url}/api/pub/v2/erasures`;
  for (const m of ids.merges)
    await post(`${s.server.url}/api/pub/v2/leads/${m.survivor}/merge`, p.key, { mergeLeadIds: [m.merged] });
  const schema = schemaName(`s${LEADS}`);
  const pg = engine === 'postgres' ? postgres(p.where, { max: 1, onnotice: () => {} }) : null;
  const sampler = TRACE && pg !== null ? postgres(p.where, { max: 1, onnotice: () => {} }) : null;
  const activity = sampler === null ? null : new DbActivity(sampler);
  const last: Req = { url: `${s.server.url}/api/pub/leads/getLastLead`, auth: `Bearer ${p.key}` };
  await unloaded(last); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const u1 = await unloaded(last);
    const persons = await during(last, activity, async () => {
      const answers: number[] = [];
      for (let i = 0; i < PERSONS; i++)
        answers.push(await post(erasures, p.key, { email: personEmail(round, i) }));
      await vacuumed(pg, schema, new Date());
      return answers;
    });
    const u2 = await unloaded(last);
    const byIds = await during(last, activity, async () => {
      const answers: number[] = [];
      const batches = chunks(ids.free[round]!, PER_REQUEST);
      let sent = new Date();
      for (const leadIds of batches) {
        sent = new Date();
        answers.push(await post(erasures, freeKey, { leadIds }));
      }
      await vacuumed(pg, schema, sent);
      return answers;
    });
    const line = { engine, unloadedP99: u1, persons, unloadedP99BeforeIds: u2, byIds };
    console.log(JSON.stringify({ leads: LEADS, round, ...line }));
    rounds.push(line);
  }
  await pg?.end();
  await sampler?.end();
  await stopServers();
  await inProcess(engine, p.where);
}

/**
 * The use case in process on the same store (the last set): erasure and reclaim timed apart;
 * the IDS leads in one erasure, as `leadline erase` may (the operator: up to MAX_ERASED_IDS).
 */
async function inProcess(engine: Engine, where: string): Promise<void> {
  const store = engine === 'sqlite' ? SqliteStore.open(where) : PostgresStore.open(where);
  const set = SETS - 1;
  const erase: number[] = [];
  const reclaim: number[] = [];
  try {
    for (let i = 0; i < PERSONS; i++) {
      let t0 = performance.now();
      const r = await eraseData(store, {
        by: { operator: { teamId: 1 } },
        email: personEmail(set, i),
        now: Date.now(),
      });
      erase.push(performance.now() - t0);
      if (r.counts.leads !== 4) throw new Error(`person ${i}: ${r.counts.leads} leads erased, not 4`);
      t0 = performance.now();
      await reclaimAfterErasure(store);
      reclaim.push(performance.now() - t0);
    }
    const ids = await readIds(engine, where, SETS, IDS);
    let t0 = performance.now();
    await eraseData(store, { by: { operator: { teamId: 2 } }, leadIds: ids.free[set]!, now: Date.now() });
    const idsMs = performance.now() - t0;
    t0 = performance.now();
    await reclaimAfterErasure(store);
    const idsReclaimMs = performance.now() - t0;
    const line = {
      engine,
      leads: LEADS,
      inProcess: { personMs: median(erase), personReclaimMs: median(reclaim), idsMs, idsReclaimMs },
    };
    console.log(JSON.stringify(line));
    for (const [k, v] of Object.entries(line.inProcess))
      if (!Number.isFinite(v)) throw new Error(`${engine} in process: no ${k}`);
  } finally {
    await store.close();
  }
}

interface RoundLine {
  engine: Engine;
  unloadedP99: number;
  persons: Window;
  unloadedP99BeforeIds: number;
  byIds: Window;
}
const rounds: RoundLine[] = [];

/** Per engine: the median ratio of each window and how many rounds met ≤ 2×; figures must be numbers. */
function summarise(): void {
  for (const engine of engines) {
    const mine = rounds.filter((r) => r.engine === engine);
    const lines = [
      ['persons', mine.map((r) => r.persons.p99 / r.unloadedP99)],
      ['ids', mine.map((r) => r.byIds.p99 / r.unloadedP99BeforeIds)],
    ] as const;
    for (const [what, ratios] of lines) {
      if (ratios.length === 0 || !ratios.every(Number.isFinite))
        throw new Error(`${engine} ${what}: no ratio`);
      const met = ratios.filter((x) => x <= 2).length;
      log(
        `${engine} ${what}: p99 ratio median ${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(' / ')}), ${met} of ${ratios.length} ≤ 2`,
      );
    }
  }
}

let exitCode = 0;
try {
  // The server runs dist/: compiled from these sources first, unless BENCH_BUILD=0 (dist/ as it is).
  if (!SMOKE && env.BENCH_BUILD !== '0') execSync('npm run build', { stdio: 'ignore' });
  for (const engine of engines) await benchEngine(engine);
  summarise();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  exitCode = 1;
} finally {
  await stopServers();
  await removeStores();
}
process.exit(exitCode);
