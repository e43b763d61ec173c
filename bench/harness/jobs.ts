/**
 * A job is one measurement a round makes; the rounds run every job in turn, the order reversed
 * every other round, so that no target always runs first (on a cold cache) or last.
 */
import { drive, type Measured, type Req } from '../load.js';
import { log, ROUNDS, SECONDS } from './config.js';
import { add } from './figures.js';

export interface Job {
  name: string;
  run: () => Promise<void>;
  /** A load job's request, which the warm-up drives too. */
  req?: Req;
}

/**
 * Drives `req` for BENCH_SECONDS: `<name>.rps`, `.p50`, `.p99`; any error fails the run.
 * `primeSeconds`: an unmeasured load first (the ideal references on PostgreSQL close idle
 * connections after 2 s, bench/ideal.ts, and reopen them there rather than in the measurement).
 */
export function loadJob(name: string, req: Req, connections: number, primeSeconds = 0): Job {
  return {
    name,
    req,
    run: async () => {
      if (primeSeconds > 0) await drive(req, primeSeconds, connections);
      const m: Measured = await drive(req, SECONDS, connections);
      if (m.errors > 0) throw new Error(`${name}: ${m.errors} errors or non-2xx answers`);
      add(`${name}.rps`, m.rps);
      add(`${name}.p50`, m.p50);
      add(`${name}.p99`, m.p99);
    },
  };
}

/**
 * Warms every server's JIT before the measured rounds: one second of each 10-connection load,
 * and of each one-connection load of the ideal references (issue 16), which nothing else warms.
 */
export async function warmUp(jobs: Job[]): Promise<void> {
  for (const j of jobs.filter(
    (j) =>
      j.name.includes('.c10.') || j.name === 'bare' || j.name === 'samework' || j.name.includes('search.c1.'),
  )) {
    await drive(j.req!, 1, 10);
  }
}

/** BENCH_ROUNDS rounds of every job; `t0` (Date.now() at the start of the run) for the log. */
export async function runRounds(jobs: Job[], t0: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? jobs : [...jobs].reverse();
    for (const job of order) {
      await job.run();
    }
    log(`round ${round + 1}/${ROUNDS} done (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
}
