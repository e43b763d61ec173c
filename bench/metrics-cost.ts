/**
 * What metrics cost on the hot path (issue 17): getLastLead at 10 connections against two
 * leadline servers on the same store, one with metrics on (bench/lib.ts's SERVER_ENV, as every
 * bench runs) and one with them off, in alternated rounds; medians.
 *
 *   node --import tsx bench/metrics-cost.ts                 100k leads, SQLite and PostgreSQL
 *   METRICS_COST_LEADS=1000000 METRICS_COST_ENGINES=sqlite node --import tsx bench/metrics-cost.ts
 *
 * Knobs: METRICS_COST_LEADS (default 100000), METRICS_COST_ENGINES (default sqlite,postgres),
 * BENCH_SECONDS (per load, default 5), BENCH_ROUNDS (default 5). Servers on CPU 0, wrk on CPU 1.
 * The server with metrics on is scraped once after each of its loads, so its series are real.
 * Besides requests a second, the servers' CPU time per request (user + system, from
 * /proc/<pid>/stat): on a machine shared with other work it moves far less than throughput.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Engine, log } from './harness/config.js';
import { dir, prepare, removeStores, writeSeed } from './harness/stores.js';
import { BIN, freePort, median, SERVER_ENV, startPinned, stop, type Target } from './lib.js';
import { drive, LOADGEN } from './load.js';

const LEADS = Number(process.env.METRICS_COST_LEADS ?? 100_000);
const ENGINES = (process.env.METRICS_COST_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const { LEADLINE_METRICS_TOKEN: token, ...OFF_ENV } = SERVER_ENV;
const TICK_US = 1e6 / 100; // USER_HZ

/** CPU time the process has used, in µs (utime + stime of /proc/<pid>/stat). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

async function server(
  name: string,
  engine: Engine,
  where: string,
  env: Record<string, string>,
): Promise<Target> {
  const port = await freePort();
  const store = engine === 'sqlite' ? ['--db', where] : ['--database-url', where];
  return startPinned(
    name,
    0,
    [BIN, ...store, 'serve', '--port', String(port)],
    env,
    `http://127.0.0.1:${port}/healthz`,
  );
}

const lines: string[] = [];
const file = join(dir, 'leads.ndjson');
await writeSeed(file, LEADS);
try {
  for (const engine of ENGINES) {
    const p = await prepare(engine, LEADS, file, LEADS);
    const on = await server('metrics on', engine, p.where, SERVER_ENV);
    const off = await server('metrics off', engine, p.where, OFF_ENV);
    const req = (t: Target) => ({ url: `${t.url}/api/pub/leads/getLastLead`, auth: `Bearer ${p.key}` });
    for (const t of [on, off]) await drive(req(t), 1, 10);
    const rps: Record<string, number[]> = { on: [], off: [] };
    const p99: Record<string, number[]> = { on: [], off: [] };
    const cpu: Record<string, number[]> = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: ['on' | 'off', Target][] = [
        ['on', on],
        ['off', off],
      ];
      if (round % 2 === 1) order.reverse();
      for (const [which, t] of order) {
        const c0 = cpuMicros(t.child.pid!);
        const m = await drive(req(t), SECONDS, 10);
        cpu[which]!.push((cpuMicros(t.child.pid!) - c0) / (m.rps * SECONDS));
        if (m.errors > 0) throw new Error(`${which}: ${m.errors} errors`);
        rps[which]!.push(m.rps);
        p99[which]!.push(m.p99);
        if (which === 'on') {
          const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
          if (!(await res.text()).includes('leadline_http_requests_total{route="/api/pub/leads/getLastLead"'))
            throw new Error('the server with metrics on did not count the load');
        }
      }
      log(
        `${engine} round ${round + 1}: on ${Math.round(rps.on!.at(-1)!)}, off ${Math.round(rps.off!.at(-1)!)} req/s; ` +
          `CPU on ${cpu.on!.at(-1)!.toFixed(1)}, off ${cpu.off!.at(-1)!.toFixed(1)} µs/request`,
      );
    }
    await stop(on);
    await stop(off);
    const ratio = median(rps.on!) / median(rps.off!);
    lines.push(
      `| ${engine} | ${LEADS} | ${Math.round(median(rps.on!))} | ${Math.round(median(rps.off!))} | ${ratio.toFixed(3)} | ${median(cpu.on!).toFixed(1)} / ${median(cpu.off!).toFixed(1)} µs (${(median(cpu.on!) / median(cpu.off!)).toFixed(3)}) | ${median(p99.on!).toFixed(2)} / ${median(p99.off!).toFixed(2)} ms |`,
    );
  }
} finally {
  await removeStores();
}
console.log(
  `\ngetLastLead, 10 connections, ${LOADGEN}, ${ROUNDS} alternated rounds of ${SECONDS} s, medians`,
);
console.log(
  '| engine | leads | metrics on (req/s) | metrics off (req/s) | on ÷ off | server CPU per request, on / off (ratio) | p99 on / off |',
);
console.log('|---|---|---|---|---|---|---|');
for (const l of lines) console.log(l);
