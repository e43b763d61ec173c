/**
 * Where a missed target's time goes: starts leadline under `node --cpu-prof` (pinned to CPU 0),
 * drives one request with wrk (CPU 1) for a few seconds, stops the server, and prints the
 * functions with the most self time and the project files' inclusive share.
 *
 *   node --import tsx bench/profile.ts --db data/bench.db getLastLead
 *   node --import tsx bench/profile.ts --database-url postgres://… 'getLastLeadSubTeam?subTeamId=1'
 *   node --import tsx bench/profile.ts --db data/bench.db search '{"filters":{"teamId":1}}'
 *
 * Needs member 1 in the store; a legacy-v1 key for it is created. Profiles go to $PROFILE_DIR
 * (default $TMPDIR/leadline-profiles), deleted after the summary unless PROFILE_KEEP=1.
 *
 * PROFILE_TARGET=ideal (or ideal-fastify) profiles issue 16's reference instead of leadline —
 * bench/reference-ideal.ts (reference-ideal-fastify.ts) on the same store, key and load — so the
 * two profiles side by side say which work is leadline's own (getLastLead and search only).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameLabel, type ProfileNode, readProfile, sampleTimes } from './cpu-profile.js';
import { BIN, freePort, SERVER_ENV, startPinned, stop } from './lib.js';
import { drive } from './load.js';
import { memberOneKey } from './member-key.js';

const [flag, where, op = 'getLastLead', body] = process.argv.slice(2);
if ((flag !== '--db' && flag !== '--database-url') || where === undefined) {
  console.error(
    'usage: bench/profile.ts --db <file> | --database-url <url> <v1 operation[?query]> | search [body]',
  );
  process.exit(2);
}
const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
/** PROFILE_METRICS=off: the server without metrics, to compare with a profile of one with them. */
const PROFILE_METRICS = process.env.PROFILE_METRICS ?? 'on';
const { LEADLINE_METRICS_TOKEN: _token, ...OFF_ENV } = SERVER_ENV;
const dir = process.env.PROFILE_DIR ?? join(tmpdir(), 'leadline-profiles');
const key = await memberOneKey(flag, where);
const TARGET = process.env.PROFILE_TARGET ?? 'leadline';
const REFERENCES: Record<string, string> = {
  ideal: 'reference-ideal.ts',
  'ideal-fastify': 'reference-ideal-fastify.ts',
};
if (TARGET !== 'leadline' && REFERENCES[TARGET] === undefined) {
  console.error(`PROFILE_TARGET must be leadline, ${Object.keys(REFERENCES).join(' or ')}`);
  process.exit(2);
}

// One folder per run: a server started with `--import tsx` writes a profile per thread (its module
// loader runs in a worker); the main thread's is the largest.
const runDir = join(dir, `${TARGET}-${op.replace(/\W+/g, '_')}-${Date.now()}`);
const port = await freePort();
const profiling = ['--cpu-prof', `--cpu-prof-dir=${runDir}`];
const server =
  TARGET === 'leadline'
    ? await startPinned(
        'leadline',
        0,
        [...profiling, BIN, flag, where, 'serve', '--port', String(port)],
        PROFILE_METRICS === 'off' ? OFF_ENV : SERVER_ENV,
        `http://127.0.0.1:${port}/healthz`,
      )
    : await startPinned(
        TARGET,
        0,
        [
          ...profiling,
          '--import',
          'tsx',
          fileURLToPath(new URL(REFERENCES[TARGET]!, import.meta.url)),
          String(port),
          flag === '--db' ? 'sqlite' : 'postgres',
          where,
        ],
        {},
        `http://127.0.0.1:${port}/healthz`,
      );
const req =
  op === 'search'
    ? {
        url: `${server.url}/api/pub/v2/leads/search`,
        auth: `Bearer ${key}`,
        method: 'POST' as const,
        body: body ?? '{"filters":{"teamId":1}}',
      }
    : { url: `${server.url}/api/pub/leads/${op}`, auth: `Bearer ${key}` };
// The load's window on the profile's clock (both CLOCK_MONOTONIC, µs): start-up and shutdown
// samples are left out, so the figures are the requests' alone.
const from = Number(process.hrtime.bigint() / 1000n);
const m = await drive(req, seconds, op.startsWith('getLeadsTimeRange') ? 1 : 10);
const to = Number(process.hrtime.bigint() / 1000n);
await stop(server);
console.log(
  `${TARGET} ${op}: ${Math.round(m.rps)} req/s (${Math.round(m.rps * seconds)} requests), p50 ${m.p50.toFixed(3)} ms, errors ${m.errors}`,
);

const file = readdirSync(runDir)
  .map((f) => join(runDir, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
const profile = readProfile(file);
{
  const times = sampleTimes(profile);
  const inLoad = profile.samples.filter((_, i) => times[i]! >= from && times[i]! <= to);
  if (inLoad.length === 0) throw new Error('no sample fell inside the load window');
  profile.samples = inLoad;
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const total = profile.samples.length;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const id of profile.samples) {
  const n = byId.get(id)!;
  self.set(frameLabel(n), (self.get(frameLabel(n)) ?? 0) + 1);
  // Inclusive per project source file (each file counted once per sample).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const url = byId.get(cur)!.callFrame.url;
    const m2 = /\/(src|dist|bench)\/(.+?)\.(ts|js)$/.exec(url);
    if (m2 !== null) seen.add(`${m2[2]}`);
    const fn = byId.get(cur)!.callFrame.functionName;
    if (/node_modules\/(fastify|pino|better-sqlite3|postgres)\//.exec(url))
      seen.add(`[${/node_modules\/([^/]+)/.exec(url)![1]}]`);
    if (fn === '(garbage collector)' || fn === '(idle)' || fn === '(program)') seen.add(fn);
  }
  for (const s of seen) inclusive.set(s, (inclusive.get(s) ?? 0) + 1);
}
const pct = (x: number) => `${((100 * x) / total).toFixed(1)}%`.padStart(6);
/** PROFILE_TOP: how many functions the self-time list shows (25). */
const TOP = Number(process.env.PROFILE_TOP ?? 25);
console.log(`\n${total} samples during the load; self time, top ${TOP}:`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${pct(v)}  ${k}`);
console.log('\ninclusive, by project file / package, top 30:');
for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${pct(v)}  ${k}`);
// What metrics cost (issue 17): self time in their code, as a share of the time not idle.
const METRICS_CODE =
  /\/(src|dist)\/(metrics\/|http\/metrics\.|storage\/observed-store\.)|node_modules\/prom-client\//;
// Costs of metrics outside their own files: Fastify's request getters (routeOptions: an object per call),
// perf_hooks' observer machinery (the GC histogram of prom-client's default metrics), and GC.
const PARTS: [string, (n: ProfileNode) => boolean][] = [
  [
    'metrics code (src/metrics, http/metrics, storage/observed-store, prom-client)',
    (n) => METRICS_CODE.test(n.callFrame.url),
  ],
  [
    "Fastify's request getters (routeOptions, read per request, builds an object)",
    (n) => n.callFrame.functionName === 'get' && /fastify\/lib\/request\.js$/.test(n.callFrame.url),
  ],
  ['perf_hooks observers (node:internal/perf)', (n) => n.callFrame.url.startsWith('node:internal/perf/')],
  ['(garbage collector)', (n) => n.callFrame.functionName === '(garbage collector)'],
];
let busy = 0;
const parts = PARTS.map(() => 0);
for (const id of profile.samples) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  busy++;
  PARTS.forEach(([, test], i) => {
    if (test(n)) parts[i]!++;
  });
}
const share = (x: number) => `${((100 * x) / busy).toFixed(1)} %`;
console.log(
  `\nmetrics ${PROFILE_METRICS}: self time as a share of the ${busy} busy samples (${((busy * 1000) / (m.rps * seconds)).toFixed(0)} busy samples per 1,000 requests)`,
);
for (const [i, [name]] of PARTS.entries()) console.log(`${share(parts[i]!).padStart(7)}  ${name}`);
if (process.env.PROFILE_KEEP !== '1') rmSync(runDir, { recursive: true, force: true });
else console.log(`\nprofile kept: ${file}`);
