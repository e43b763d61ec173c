/**
 * The benchmark's knobs (bench/run.ts's header lists them), read once from the environment, and
 * the sizes every scenario derives from them.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Engine = 'sqlite' | 'postgres';

const env = process.env;
export const SMOKE = env.BENCH_SMOKE === '1';
export const BENCH_10M = env.BENCH_10M === '1';
/** RESULTS.md is written by a full run unless BENCH_WRITE=0. */
export const WRITE_RESULTS = !SMOKE && env.BENCH_WRITE !== '0';
/**
 * Sizes above this are built by importing this many leads and copying them in SQL (bench/grow.ts):
 * the 10M store. The smoke run copies too (2k → 4k), so that path cannot rot either.
 * BENCH_IMPORTED_AT_MOST=100000 builds a 1M store the same way (100k imported, copied ×10): the
 * import of 1M takes tens of minutes on a loaded machine.
 */
export const IMPORTED_AT_MOST = SMOKE ? 2_000 : Number(env.BENCH_IMPORTED_AT_MOST ?? 1_000_000);
export const SIZES: number[] = env.BENCH_SIZES
  ? env.BENCH_SIZES.split(',').map(Number)
  : SMOKE
    ? [2_000, 4_000]
    : [10_000, 1_000_000, ...(BENCH_10M ? [10_000_000] : [])];
export const LARGEST = Math.max(...SIZES);
export const SMALLEST = Math.min(...SIZES);
/** P1, P3 and P4 are stated at 1M leads: the largest imported size. P2 and P6 use LARGEST (10M). */
export const MAIN = Math.max(...SIZES.filter((n) => n <= IMPORTED_AT_MOST), SMALLEST);
export const SECONDS = Number(env.BENCH_SECONDS ?? (SMOKE ? 1 : 5));
export const ROUNDS = Number(env.BENCH_ROUNDS ?? (SMOKE ? 1 : 3));
export const ENGINES = (env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
export const IMPORT_LEADS = Number(env.BENCH_IMPORT_LEADS ?? (SMOKE ? 2_000 : 100_000));
export const RANGE_LEADS = Math.min(100_000, Math.floor(MAIN / 2));
export const MEMBERS = 1_000; // one team of 1,000 members: P4's team, and every lead in one team
export const PG_BASE = env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Redis for P1's leadline-with-Redis line (issue 16); a run fails if it is not reachable. */
export const REDIS_URL = env.LEADLINE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * BENCH_SCENARIOS=p1,p6: only these targets' jobs and rows (default all). P4 and P6 bring P2
 * along (getLastLead's one-connection p50 is their denominator).
 */
const ALL_SCENARIOS = ['p1', 'p2', 'p3a', 'p3bc', 'p4', 'p5', 'p6'] as const;
export type Scenario = (typeof ALL_SCENARIOS)[number];
const chosen = (env.BENCH_SCENARIOS ?? ALL_SCENARIOS.join(',')).split(',').map((s) => s.trim());
for (const s of chosen)
  if (!(ALL_SCENARIOS as readonly string[]).includes(s))
    throw new Error(`BENCH_SCENARIOS: unknown ${JSON.stringify(s)} (${ALL_SCENARIOS.join(', ')})`);
export const SCENARIOS = new Set<Scenario>([
  ...(chosen as Scenario[]),
  ...(chosen.includes('p4') || chosen.includes('p6') ? (['p2'] as const) : []),
]);
export const ALL = SCENARIOS.size === ALL_SCENARIOS.length;
export const PROFILE = env.BENCH_PROFILE === '1';
export const PROFILE_DIR = env.BENCH_PROFILE_DIR ?? join(tmpdir(), 'leadline-profiles');
/**
 * The CPUs leadline's server may run on (taskset's list): CPU 0 unless BENCH_SERVER_CPUS says
 * otherwise — `0,1` leaves the server's threads to the scheduler, as a deployment would.
 */
export const SERVER_CPUS = env.BENCH_SERVER_CPUS ?? '0';

export const log = (s: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
