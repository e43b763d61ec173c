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
 * LEADLINE_TEST_DATABASE_URL (PostgreSQL, default postgres://postgres@127.0.0.1:5432/test).
 */
import { execSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { fileSource, importRecords } from '../src/domain/import.js';
import { createKey } from '../src/domain/keys.js';
import { seedRecords } from '../src/domain/seed.js';
import type { Store } from '../src/domain/store.js';
import { PG_LEAD_QUERIES } from '../src/storage/postgres/postgres-leads.js';
import { PostgresStore } from '../src/storage/postgres/postgres-store.js';
import { LEAD_COLUMNS } from '../src/storage/rows.js';
import { LEAD_QUERIES } from '../src/storage/sqlite/sqlite-leads.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { growPostgres, growSqlite } from './grow.js';
import { BIN, freePort, machine, median, SERVER_ENV, startPinned, stop, type Target } from './lib.js';
import { drive, LOADGEN, type Measured, probe, quantile, type Req, readAll, rssOf } from './load.js';
import { dumpPostgres, dumpSqlite, loadPostgres, loadSqlite } from './raw-load.js';

type Engine = 'sqlite' | 'postgres';
const env = process.env;
const SMOKE = env.BENCH_SMOKE === '1';
/**
 * Sizes above this are built by importing this many leads and copying them in SQL (bench/grow.ts):
 * the 10M store. The smoke run copies too (2k → 4k), so that path cannot rot either.
 */
const IMPORTED_AT_MOST = SMOKE ? 2_000 : 1_000_000;
const SIZES: number[] = env.BENCH_SIZES
  ? env.BENCH_SIZES.split(',').map(Number)
  : SMOKE
    ? [2_000, 4_000]
    : [10_000, 1_000_000, ...(env.BENCH_10M === '1' ? [10_000_000] : [])];
const LARGEST = Math.max(...SIZES);
const SMALLEST = Math.min(...SIZES);
/** P1, P3 and P4 are stated at 1M leads: the largest imported size. P2 and P6 use LARGEST (10M). */
const MAIN = Math.max(...SIZES.filter((n) => n <= IMPORTED_AT_MOST), SMALLEST);
const SECONDS = Number(env.BENCH_SECONDS ?? (SMOKE ? 1 : 5));
const ROUNDS = Number(env.BENCH_ROUNDS ?? (SMOKE ? 1 : 3));
const ENGINES = (env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const IMPORT_LEADS = Number(env.BENCH_IMPORT_LEADS ?? (SMOKE ? 2_000 : 100_000));
const RANGE_LEADS = Math.min(100_000, Math.floor(MAIN / 2));
const MEMBERS = 1_000; // one team of 1,000 members: P4's team, and every lead in one team
const PG_BASE = env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PROFILE = env.BENCH_PROFILE === '1';
const PROFILE_DIR = env.BENCH_PROFILE_DIR ?? join(tmpdir(), 'leadline-profiles');

const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
const admin = postgres(PG_BASE, { max: 1, onnotice: () => {} });
const schemas: string[] = [];
const started: Target[] = [];
const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

/** Every measurement, by name; the figures are medians over rounds. */
const samples = new Map<string, number[]>();
const add = (name: string, v: number) => {
  const xs = samples.get(name) ?? [];
  xs.push(v);
  samples.set(name, xs);
};
const med = (name: string): number => {
  const xs = samples.get(name);
  return xs === undefined || xs.length === 0 ? Number.NaN : median(xs);
};
/** Every round's figure, in round order, rounded: `6,606 / 1,458 / 7,073`. */
const all = (name: string): string =>
  (samples.get(name) ?? []).map((x) => Math.round(x).toLocaleString('en-US')).join(' / ') || 'n/a';

// ---------------------------------------------------------------------------------------------
// Data

async function writeSeed(file: string, leads: number): Promise<void> {
  const out = createWriteStream(file);
  for (const line of seedRecords({ teams: 1, membersPerTeam: MEMBERS, leads, seed: 'bench' })) {
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

async function pgSchema(name: string): Promise<string> {
  const schema = `bench_${process.pid}_${name}`;
  if (!schemas.includes(schema)) schemas.push(schema);
  // pg_trgm lives in public, shared: a schema dropped later must not take it along.
  await admin.unsafe('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').catch(() => {});
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  return `${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}search_path=${schema}%2Cpublic`;
}

function sqlitePath(name: string): string {
  const p = join(dir, `${name}.db`);
  for (const s of ['', '-wal', '-shm']) rmSync(`${p}${s}`, { force: true });
  return p;
}

/** A fresh, migrated store; `where` is the file (SQLite) or URL (PostgreSQL). */
async function freshStore(engine: Engine, name: string): Promise<{ store: Store; where: string }> {
  const where = engine === 'sqlite' ? sqlitePath(name) : await pgSchema(name);
  const store = engine === 'sqlite' ? SqliteStore.open(where) : PostgresStore.open(where);
  await store.migrate();
  return { store, where };
}

async function timedImport(store: Store, file: string): Promise<number> {
  const t0 = performance.now();
  await importRecords(store, [fileSource(file)]);
  return (performance.now() - t0) / 1000;
}

// ---------------------------------------------------------------------------------------------
// P5: import vs the raw driver's bulk load of the same rows, alternated

async function importScenario(): Promise<void> {
  const file = join(dir, `import-${IMPORT_LEADS}.ndjson`);
  await writeSeed(file, IMPORT_LEADS);
  const dumped: Partial<Record<Engine, { table: string; columns: string[] }[] | true>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const engine of round % 2 === 0 ? ENGINES : [...ENGINES].reverse()) {
      log(`P5 ${engine}: fresh store`);
      const imp = await freshStore(engine, 'import');
      log(`P5 ${engine}: importing`);
      add(`import.${engine}`, await timedImport(imp.store, file));
      await imp.store.close();
      if (dumped[engine] === undefined) {
        if (engine === 'sqlite') dumped[engine] = dumpSqlite(imp.where, dir);
        else {
          dumpPostgres(PG_BASE, `bench_${process.pid}_import`, dir);
          dumped[engine] = true;
        }
      }
      log(`P5 ${engine}: raw load`);
      const raw = await freshStore(engine, 'raw');
      await raw.store.close();
      const d = dumped[engine]!;
      add(
        `rawload.${engine}`,
        d === true ? await loadPostgres(raw.where, dir) : loadSqlite(raw.where, dir, d),
      );
      log(`P5 round ${round + 1} ${engine}: import ${med(`import.${engine}`).toFixed(2)} s`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Stores served, one per size and engine

interface Served {
  engine: Engine;
  size: number;
  where: string;
  key: string;
  server: Target;
}

async function prepare(
  engine: Engine,
  size: number,
  file: string,
  imported: number,
): Promise<Omit<Served, 'server'>> {
  const { store, where } = await freshStore(engine, `s${size}`);
  const seconds = await timedImport(store, file);
  add(`setup.import.${engine}.${size}`, seconds);
  log(`imported ${imported} leads into ${engine} in ${seconds.toFixed(1)} s`);
  if (size > imported) {
    const t0 = performance.now();
    if (engine === 'sqlite') growSqlite(where, size / imported);
    else await growPostgres(where, size / imported);
    const grown = (performance.now() - t0) / 1000;
    add(`setup.grow.${engine}.${size}`, grown);
    log(`copied them to ${size} leads in ${engine} in ${grown.toFixed(1)} s`);
  }
  // Keys made after the v1 freeze are refused by v1 unless granted legacy access.
  const { key } = await createKey(store, { member: 1, legacyV1: true });
  await store.close();
  await settle(engine, where);
  return { engine, size, where, key };
}

/**
 * After the bulk load, what an operator's maintenance would do before serving, so that neither
 * leadline nor the in-process references measure it: PostgreSQL VACUUM (ANALYZE) of the store's tables (visibility map,
 * hint bits, planner statistics — otherwise autovacuum does it during the first measurements);
 * SQLite ANALYZE (statistics without STAT4 samples) and a WAL checkpoint that empties the log.
 */
async function settle(engine: Engine, where: string): Promise<void> {
  const t0 = performance.now();
  if (engine === 'sqlite') {
    const db = new Database(where);
    // Without the samples, as leadline keeps an analyzed store (SqliteStore.migrate): with them
    // SQLite re-plans each statement per binding, the raw-driver references included.
    db.exec('ANALYZE; DELETE FROM sqlite_stat4; ANALYZE sqlite_schema');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const sql = postgres(where, { max: 1, onnotice: () => {} });
    await sql.unsafe('VACUUM (ANALYZE) leads, members, teams, subteams, subteam_members, api_keys');
    await sql.end();
  }
  log(`settled the ${engine} store in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function serve(p: Omit<Served, 'server'>): Promise<Served> {
  const port = await freePort();
  const prof = PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${p.engine}-${p.size}.cpuprofile`]
    : [];
  const store = p.engine === 'sqlite' ? ['--db', p.where] : ['--database-url', p.where];
  const server = await startPinned(
    `leadline ${p.engine} ${p.size}`,
    0,
    [...prof, BIN, ...store, 'serve', '--port', String(port)],
    SERVER_ENV,
    `http://127.0.0.1:${port}/healthz`,
  );
  started.push(server);
  return { ...p, server };
}

const v1 = (s: Served, op: string, query = ''): Req => ({
  url: `${s.server.url}/api/pub/leads/${op}${query}`,
  auth: `Bearer ${s.key}`,
});
const SEARCH_BODY = JSON.stringify({ filters: { teamId: 1 } });
const search = (s: Served, body = SEARCH_BODY): Req => ({
  url: `${s.server.url}/api/pub/v2/leads/search`,
  auth: `Bearer ${s.key}`,
  method: 'POST',
  body,
});

// ---------------------------------------------------------------------------------------------
// Reference servers

async function jsonServer(from: Served): Promise<Target> {
  // The same leads, as leadline's v1 answers them, in json-server's db file.
  const res = await fetch(v1(from, 'getLeadsTimeRangeForTeam', '?start=0').url, {
    headers: { authorization: `Bearer ${from.key}` },
  });
  const leads = (await res.json()) as unknown[];
  const db = join(dir, 'json-server-db.json');
  writeFileSync(db, JSON.stringify({ leads }));
  const port = await freePort();
  const bin = fileURLToPath(new URL('../node_modules/json-server/lib/cli/bin.js', import.meta.url));
  const t = await startPinned(
    'json-server',
    0,
    [bin, db, '--port', String(port), '--quiet'],
    {},
    `http://127.0.0.1:${port}/leads/${encodeURIComponent(String((leads[0] as { id: string }).id))}`,
  );
  started.push(t);
  return t;
}

// ---------------------------------------------------------------------------------------------
// In-process references: the raw driver running getLastLead's query; read + stringify of a range

async function rawLastLeadQps(s: Served, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let n = 0;
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const stmt = db.prepare(LEAD_QUERIES.lastOfMember).raw(true);
    while (performance.now() < until) {
      for (let i = 0; i < 100; i++) stmt.get(1, 1);
      n += 100;
    }
    db.close();
  } else {
    const sql = postgres(s.where, { max: 10, onnotice: () => {} });
    await sql.unsafe(PG_LEAD_QUERIES.lastOfMember, [1, 1], { prepare: true });
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (performance.now() < until) {
          await sql.unsafe(PG_LEAD_QUERIES.lastOfMember, [1, 1], { prepare: true }).raw();
          n++;
        }
      }),
    );
    await sql.end();
    return n / ((performance.now() - t0) / 1000);
  }
  return n / seconds;
}

const RANGE_SQL = `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
  WHERE l.team_id = 1 AND l.epoch >= 0 AND l.epoch < `;

/** Reads the range's rows in one go as objects and JSON.stringify()s them; ms and bytes. */
async function rawReadStringify(s: Served, end: number): Promise<{ ms: number; bytes: number }> {
  const q = `${RANGE_SQL}${end} ORDER BY l.epoch, l.seq`;
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const t0 = performance.now();
    const text = JSON.stringify(db.prepare(q).all());
    const ms = performance.now() - t0;
    db.close();
    return { ms, bytes: Buffer.byteLength(text) };
  }
  const sql = postgres(s.where, { max: 1, onnotice: () => {} });
  const t0 = performance.now();
  const text = JSON.stringify(await sql.unsafe(q));
  const ms = performance.now() - t0;
  await sql.end();
  return { ms, bytes: Buffer.byteLength(text) };
}

/** The epoch bound below which the team has (about) RANGE_LEADS leads, and the exact count. */
async function rangeBound(s: Served): Promise<{ end: number; count: number }> {
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const row = db
      .prepare('SELECT epoch FROM leads WHERE team_id = 1 ORDER BY epoch, seq LIMIT 1 OFFSET ?')
      .get(RANGE_LEADS) as { epoch: number };
    const c = db
      .prepare('SELECT count(*) AS c FROM leads WHERE team_id = 1 AND epoch < ?')
      .get(row.epoch) as {
      c: number;
    };
    db.close();
    return { end: row.epoch, count: c.c };
  }
  const sql = postgres(s.where, { max: 1, onnotice: () => {} });
  const [row] =
    await sql`SELECT epoch::float8 AS epoch FROM leads WHERE team_id = 1 ORDER BY epoch, seq LIMIT 1 OFFSET ${RANGE_LEADS}`;
  const [c] = await sql`SELECT count(*)::int AS c FROM leads WHERE team_id = 1 AND epoch < ${row!.epoch}`;
  await sql.end();
  return { end: row!.epoch as number, count: c!.c as number };
}

// ---------------------------------------------------------------------------------------------
// P3's big answer: the whole team (every lead of the largest size) in one v1 range

async function bigAnswer(s: Served): Promise<void> {
  const pid = s.server.child.pid!;
  const last = v1(s, 'getLastLead');
  for (let i = 0; i < 20; i++) await probe(last);
  const unloaded: number[] = [];
  for (let i = 0; i < 200; i++) unloaded.push((await probe(last)).ms);
  const rssBefore = rssOf(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  let done = false;
  const answer = readAll(v1(s, 'getLeadsTimeRangeForTeam', '?start=0')).finally(() => {
    done = true;
  });
  // Probes sent while the answer is still being read (one every ~20 ms), each timed to its last byte.
  const during: number[] = [];
  while (!done) {
    const p = await probe(last);
    if (p.status !== 200) throw new Error(`getLastLead answered ${p.status} during the big answer`);
    during.push(p.ms);
    await new Promise((r) => setTimeout(r, 20));
  }
  const r = await answer;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  if (r.status !== 200) throw new Error(`big answer: ${r.status}`);
  const tag = `${s.engine}.${s.size}`;
  add(`big.ms.${tag}`, r.ms);
  add(`big.mb.${tag}`, r.bytes / 1048576);
  add(`big.rssGrowth.${tag}`, (peak - rssBefore) / 1048576);
  add(`big.unloadedP99.${tag}`, quantile(unloaded, 0.99));
  add(`big.duringP99.${tag}`, quantile(during, 0.99));
  add(`big.duringMax.${tag}`, Math.max(...during));
  add(`big.probes.${tag}`, during.length);
}

// ---------------------------------------------------------------------------------------------

interface Job {
  name: string;
  run: () => Promise<void>;
}

function loadJob(name: string, req: Req, connections: number): Job {
  return {
    name,
    run: async () => {
      const m: Measured = await drive(req, SECONDS, connections);
      if (m.errors > 0) throw new Error(`${name}: ${m.errors} errors or non-2xx answers`);
      add(`${name}.rps`, m.rps);
      add(`${name}.p50`, m.p50);
      add(`${name}.p99`, m.p99);
    },
  };
}

const git = (args: string) => execSync(`git ${args}`, { encoding: 'utf8' }).trim();
/** The code measured: HEAD when the run starts, and whether src/ differed from it. */
const START_COMMIT = git('rev-parse --short HEAD');
const START_DIRTY = git('status --porcelain -- src') !== '';

async function main(): Promise<string> {
  const t0 = Date.now();
  // The servers run dist/ (bin/leadline.js): compile it from the src/ measured.
  if (!SMOKE) execSync('npm run build', { stdio: 'ignore' });
  log(
    `sizes ${SIZES.join(', ')}; engines ${ENGINES.join(', ')}; ${ROUNDS} rounds of ${SECONDS} s; ${LOADGEN}`,
  );
  if (PROFILE) mkdirSync(PROFILE_DIR, { recursive: true });

  await importScenario();

  const served: Served[] = [];
  for (const size of SIZES) {
    const imported = Math.min(size, IMPORTED_AT_MOST);
    if (size % imported !== 0) throw new Error(`size ${size} is not a multiple of ${imported}`);
    const file = join(dir, `leads-${imported}.ndjson`);
    await writeSeed(file, imported);
    for (const engine of ENGINES) served.push(await serve(await prepare(engine, size, file, imported)));
    rmSync(file, { force: true });
  }
  const barePort = await freePort();
  const bareServer = await startPinned(
    'node:http',
    0,
    ['--import', 'tsx', fileURLToPath(new URL('./reference-http.ts', import.meta.url)), String(barePort)],
    {},
    `http://127.0.0.1:${barePort}/`,
  );
  started.push(bareServer);
  // P1's second reference: node:http doing getLastLead's own work on the same (1M) SQLite store.
  const sameWorkStore = served.find((s) => s.engine === 'sqlite' && s.size === MAIN);
  let sameWork: Req | null = null;
  if (sameWorkStore !== undefined) {
    const port = await freePort();
    const server = await startPinned(
      'node:http same work',
      0,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./reference-same-work.ts', import.meta.url)),
        String(port),
        sameWorkStore.where,
      ],
      {},
      `http://127.0.0.1:${port}/healthz`,
    );
    started.push(server);
    sameWork = { url: `${server.url}/api/pub/leads/getLastLead`, auth: `Bearer ${sameWorkStore.key}` };
  }
  const smallest = served.find((s) => s.size === SMALLEST)!;
  const js = await jsonServer(smallest);

  const main = served.filter((s) => s.size === MAIN);
  const bounds = await rangeBound(main[0]!);
  log(`P3 range: ${bounds.count} leads (epoch < ${bounds.end})`);

  const jobs: Job[] = [
    loadJob('bare', { url: `${bareServer.url}/` }, 10),
    ...(sameWork === null ? [] : [loadJob('samework', sameWork, 10)]),
    loadJob(
      `json-server.${SMALLEST}`,
      { url: `${js.url}/leads?userId=1&_sort=epoch&_order=desc&_limit=1` },
      10,
    ),
  ];
  for (const s of served) {
    const tag = `${s.engine}.${s.size}`;
    jobs.push(loadJob(`last.c10.${tag}`, v1(s, 'getLastLead'), 10));
    jobs.push(loadJob(`last.c1.${tag}`, v1(s, 'getLastLead'), 1));
    jobs.push(loadJob(`team.c1.${tag}`, v1(s, 'getLastLeadTeam'), 1));
    jobs.push(loadJob(`subteam.c1.${tag}`, v1(s, 'getLastLeadSubTeam', '?subTeamId=1'), 1));
    jobs.push(loadJob(`search.c1.${tag}`, search(s), 1));
    jobs.push(
      loadJob(`search1.c1.${tag}`, search(s, JSON.stringify({ filters: { teamId: 1 }, limit: 1 })), 1),
    );
    jobs.push({
      name: `rawdriver.${tag}`,
      run: async () => add(`rawdriver.${tag}.qps`, await rawLastLeadQps(s, Math.max(1, SECONDS / 2))),
    });
  }
  for (const s of main) {
    const tag = `${s.engine}.${s.size}`;
    // Each side reads the range twice in a row; the target compares the second reads. The first
    // reads are kept and reported too: after bulk writes (the 10M builds) part of the store has
    // left the page cache, and whichever side reads first fetches it back from disk for both
    // (bench/range-reads.ts shows it with fincore; bench/misses.md).
    jobs.push({
      name: `range.${tag}`,
      run: async () => {
        for (const which of ['first', 'second'] as const) {
          const r = await readAll(v1(s, 'getLeadsTimeRangeForTeam', `?start=0&end=${bounds.end}`));
          if (r.status !== 200) throw new Error(`range: ${r.status}`);
          add(which === 'first' ? `range.first.ms.${tag}` : `range.ms.${tag}`, r.ms);
          log(`P3a ${tag} ${which} read: ${Math.round(r.ms)} ms`);
          add(`range.mb.${tag}`, r.bytes / 1048576);
        }
      },
    });
    jobs.push({
      name: `rawrange.${tag}`,
      run: async () => {
        for (const which of ['first', 'second'] as const) {
          const r = await rawReadStringify(s, bounds.end);
          add(which === 'first' ? `rawrange.first.ms.${tag}` : `rawrange.ms.${tag}`, r.ms);
          log(`P3a reference ${tag} ${which} read: ${Math.round(r.ms)} ms`);
          add(`rawrange.mb.${tag}`, r.bytes / 1048576);
        }
      },
    });
    jobs.push({ name: `big.${tag}`, run: () => bigAnswer(s) });
  }

  // Warm every server's JIT before the measured rounds.
  for (const j of jobs.filter(
    (j) => j.name.startsWith('last.c10') || j.name === 'bare' || j.name === 'samework',
  )) {
    await drive(
      j.name === 'bare'
        ? { url: `${bareServer.url}/` }
        : j.name === 'samework' && sameWork !== null
          ? sameWork
          : v1(served.find((s) => j.name.endsWith(`${s.engine}.${s.size}`))!, 'getLastLead'),
      1,
      10,
    );
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? jobs : [...jobs].reverse();
    for (const job of order) {
      await job.run();
    }
    log(`round ${round + 1}/${ROUNDS} done (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  return report(served, bounds, Math.round((Date.now() - t0) / 1000));
}

// ---------------------------------------------------------------------------------------------
// Report

interface Row {
  id: string;
  what: string;
  measured: number;
  target: number;
  /** 'le': measured ≤ target meets it; 'ge': measured ≥ target */
  sense: 'le' | 'ge';
  detail: string;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

export function rows(served: Served[]): Row[] {
  const out: Row[] = [];
  const bare = med('bare.rps');
  const small = SMALLEST;
  const big = LARGEST;
  const main = MAIN;
  const sizeName = (n: number) =>
    n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
  for (const engine of ENGINES) {
    const tb = `${engine}.${big}`;
    const ts = `${engine}.${small}`;
    const tm = `${engine}.${main}`;
    const E = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    out.push({
      id: engine === 'sqlite' ? 'P1' : 'P1 (PostgreSQL, no target)',
      what: `getLastLead throughput ÷ bare node:http, ${sizeName(main)} leads, ${E}`,
      measured: med(`last.c10.${tm}.rps`) / bare,
      target: engine === 'sqlite' ? 0.7 : Number.NaN,
      sense: 'ge',
      detail: `${int(med(`last.c10.${tm}.rps`))} vs ${int(bare)} req/s, 10 connections`,
    });
    if (engine === 'sqlite')
      out.push({
        id: 'P1 (same work, no target)',
        what: `getLastLead throughput ÷ node:http doing only getLastLead's work (key check, the query, the v1 body), ${sizeName(main)} leads, SQLite`,
        measured: med(`last.c10.${tm}.rps`) / med('samework.rps'),
        target: Number.NaN,
        sense: 'ge',
        detail: `${int(med(`last.c10.${tm}.rps`))} vs ${int(med('samework.rps'))} req/s, 10 connections`,
      });
    const p2label = big >= 10_000_000 ? '10M' : `${sizeName(big)} (10M not run)`;
    out.push({
      id: 'P2',
      what: `getLastLead p50 at ${p2label} ÷ p50 at ${sizeName(small)}, ${E}`,
      measured: med(`last.c1.${tb}.p50`) / med(`last.c1.${ts}.p50`),
      target: 1.2,
      sense: 'le',
      detail: `${f3(med(`last.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${ts}.p50`))} ms, 1 connection`,
    });
    out.push({
      id: 'P3a',
      what: `${int(med(`range.mb.${tm}`) > 0 ? RANGE_LEADS : Number.NaN)}-lead range, time to last byte ÷ raw read + JSON.stringify, ${E}`,
      measured: med(`range.ms.${tm}`) / med(`rawrange.ms.${tm}`),
      target: 1.5,
      sense: 'le',
      detail: `${int(med(`range.ms.${tm}`))} ms (${f1(med(`range.mb.${tm}`))} MB) vs ${int(med(`rawrange.ms.${tm}`))} ms (${f1(med(`rawrange.mb.${tm}`))} MB), second of two reads in a row`,
    });
    out.push({
      id: 'P3a (first reads, no target)',
      what: `the same, first read of each pair, ${E}`,
      measured: med(`range.first.ms.${tm}`) / med(`rawrange.first.ms.${tm}`),
      target: Number.NaN,
      sense: 'le',
      detail: `${int(med(`range.first.ms.${tm}`))} vs ${int(med(`rawrange.first.ms.${tm}`))} ms; each round: ${all(`range.first.ms.${tm}`)} vs ${all(`rawrange.first.ms.${tm}`)} ms`,
    });
    out.push({
      id: 'P3b',
      what: `server RSS growth during a ${sizeName(main)}-lead answer (MB), ${E}`,
      measured: med(`big.rssGrowth.${tm}`),
      target: 64,
      sense: 'le',
      detail: `${f1(med(`big.mb.${tm}`))} MB answered in ${f1(med(`big.ms.${tm}`) / 1000)} s`,
    });
    out.push({
      id: 'P3c',
      what: `getLastLead p99 during the ${sizeName(main)}-lead answer ÷ unloaded p99, ${E}`,
      measured: med(`big.duringP99.${tm}`) / med(`big.unloadedP99.${tm}`),
      target: 2,
      sense: 'le',
      detail: `${f2(med(`big.duringP99.${tm}`))} vs ${f2(med(`big.unloadedP99.${tm}`))} ms (max ${f1(med(`big.duringMax.${tm}`))} ms, ${int(med(`big.probes.${tm}`))} probes)`,
    });
    for (const op of ['team', 'subteam'] as const) {
      out.push({
        id: 'P4',
        what: `getLastLead${op === 'team' ? 'Team' : 'SubTeam'} p50 ÷ getLastLead p50, ${MEMBERS}-member team, ${sizeName(main)}, ${E}`,
        measured: med(`${op}.c1.${tm}.p50`) / med(`last.c1.${tm}.p50`),
        target: 2,
        sense: 'le',
        detail: `${f3(med(`${op}.c1.${tm}.p50`))} vs ${f3(med(`last.c1.${tm}.p50`))} ms`,
      });
    }
    out.push({
      id: 'P5',
      what: `import rate ÷ raw driver bulk load, ${sizeName(IMPORT_LEADS)} leads, ${E}`,
      measured: med(`rawload.${engine}`) / med(`import.${engine}`),
      target: 0.8,
      sense: 'ge',
      detail: `${f2(med(`import.${engine}`))} s vs ${f2(med(`rawload.${engine}`))} s (${engine === 'sqlite' ? 'prepared INSERTs' : 'COPY FROM STDIN'}, one transaction)`,
    });
    const p6label = big >= 10_000_000 ? '10M' : `${sizeName(big)} (10M not run)`;
    out.push({
      id: 'P6',
      what: `v2 search first page (100 leads) p50 ÷ getLastLead p50 at ${p6label}, ${E}`,
      measured: med(`search.c1.${tb}.p50`) / med(`last.c1.${tb}.p50`),
      target: 2,
      sense: 'le',
      detail: `${f3(med(`search.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${tb}.p50`))} ms`,
    });
    out.push({
      id: 'P6 (page of 1, no target)',
      what: `v2 search with limit 1 p50 ÷ getLastLead p50 at ${p6label}, ${E}`,
      measured: med(`search1.c1.${tb}.p50`) / med(`last.c1.${tb}.p50`),
      target: Number.NaN,
      sense: 'le',
      detail: `${f3(med(`search1.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${tb}.p50`))} ms`,
    });
  }
  void served;
  return out;
}

function references(served: Served[]): string[] {
  const bare = med('bare.rps');
  const lines = [
    '| reference | figure | ratio |',
    '|---|---|---|',
    `| bare node:http, constant ~1 KB JSON array | ${int(bare)} req/s | 1 |`,
    `| node:http doing getLastLead's work only (bench/reference-same-work.ts: key look-up and hash check, the query, the v1 body), SQLite ${MAIN} | ${int(med('samework.rps'))} req/s | ${f2(med('samework.rps') / bare)} × bare |`,
    `| json-server 0.17.4, the same ${SMALLEST} leads, member's newest (\`?userId=1&_sort=epoch&_order=desc&_limit=1\`) | ${int(med(`json-server.${SMALLEST}.rps`))} req/s | ${f3(med(`json-server.${SMALLEST}.rps`) / bare)} × bare; leadline SQLite ${SMALLEST} getLastLead = ${f2(med(`last.c10.sqlite.${SMALLEST}.rps`) / med(`json-server.${SMALLEST}.rps`))} × json-server |`,
  ];
  for (const s of served) {
    const tag = `${s.engine}.${s.size}`;
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

function report(served: Served[], bounds: { end: number; count: number }, seconds: number): string {
  const rs = rows(served);
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
  const cmd = SMOKE ? 'npm run bench:smoke' : `${env.BENCH_10M === '1' ? 'BENCH_10M=1 ' : ''}npm run bench`;
  const endCommit = git('rev-parse --short HEAD');
  const code =
    `Code measured: commit ${START_COMMIT}${START_DIRTY ? ' with uncommitted changes in src/' : ''}, compiled at the start of the run` +
    (endCommit === START_COMMIT
      ? '.'
      : `; HEAD moved to ${endCommit} during the run (servers started later may run newer dist/).`);
  return [
    `Machine: ${machine()}.`,
    code,
    `Command: \`${cmd}\` — sizes ${SIZES.join(', ')} leads (one team of ${MEMBERS} members), engines ${ENGINES.join(', ')}, ${ROUNDS} alternated rounds, ${SECONDS} s per load, load generator ${LOADGEN} on CPU 1, servers pinned to CPU 0; P3 range ${bounds.count} leads; P5 ${IMPORT_LEADS} leads; ${seconds} s in all.`,
    '',
    '## Targets',
    '',
    ...table,
    '',
    '## Reference points (same run)',
    '',
    ...references(served),
    '',
  ].join('\n');
}

let exitCode = 0;
try {
  const text = await main();
  process.stdout.write(`${text}\n`);
  if (!SMOKE && env.BENCH_WRITE !== '0') {
    // The profiled causes of the misses are written by hand in bench/misses.md and carried along.
    const misses = readFileSync(fileURLToPath(new URL('./misses.md', import.meta.url)), 'utf8');
    const results = [
      '# Benchmark results (issue 6)',
      '',
      'Written by `npm run bench`: the two tables are from the one run described here; the sections after them (bench/misses.md, written by hand) cite profiles, experiments and earlier runs, each labelled.',
      '',
      text,
      misses,
    ].join('\n');
    writeFileSync(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), results);
  }
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  exitCode = 1;
} finally {
  for (const t of started.reverse()) await stop(t).catch(() => {});
  for (const s of schemas) await admin.unsafe(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => {});
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
