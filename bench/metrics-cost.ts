/**
 * What metrics cost on the hot path (issue 17): getLastLead at 10 connections against leadline
 * servers on the same store — metrics on (bench/lib.ts's SERVER_ENV, as every bench runs), metrics
 * off, and a second server with metrics off: the control. On and off differ by metrics; off and
 * the control differ by nothing, so their ratio is what this machine's noise alone makes of two
 * servers. Medians, and each ratio's spread.
 *
 *   taskset -c 1 node --import tsx bench/metrics-cost.ts       100k leads, SQLite and PostgreSQL
 *   METRICS_COST_ENGINES=sqlite BENCH_GROUPS=7 taskset -c 1 node --import tsx bench/metrics-cost.ts
 *
 * Servers run on CPU 0 (taskset); the load (autocannon, in this process, when wrk is not
 * installed) runs wherever this process runs: start it with `taskset -c 1`, as above.
 *
 * Groups of fresh servers (BENCH_GROUPS, default 5): a server process keeps what it became while
 * warming up (optimized code, heap sizes) for its whole life, and two identical processes started
 * one after the other were seen to differ by 26–37 % in throughput, the same way in 8 of 9
 * rounds — the gap this bench once reported as the cost of metrics (servers kept for the whole
 * run: BENCH_GROUPS=1 BENCH_ROUNDS=7 BENCH_SECONDS=5 measures that way again). Within a group,
 * short rounds (BENCH_ROUNDS, default 6, of BENCH_SECONDS, default 2) alternate the servers, so
 * that load from other work on the machine falls on all of them alike; a group's ratio is the
 * median of its rounds' ratios, and the result the median of the groups'.
 *
 * Knobs: METRICS_COST_LEADS (default 100000), METRICS_COST_ENGINES (default sqlite,postgres),
 * BENCH_GROUPS, BENCH_ROUNDS, BENCH_SECONDS. The server with metrics on is scraped once after
 * each of its loads, so its series are real. Besides requests a second, per request: the
 * server's CPU time (user + system, /proc/<pid>/stat) and its time runnable but waiting for a
 * CPU (run-queue wait, /proc/<pid>/task/<tid>/schedstat): on a machine shared with other work,
 * throughput follows the wait.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Engine, log } from './harness/config.js';
import { dir, type Prepared, prepare, removeStores, writeSeed } from './harness/stores.js';
import { BIN, freePort, median, SERVER_ENV, startPinned, stop, type Target } from './lib.js';
import { drive, LOADGEN } from './load.js';

const LEADS = Number(process.env.METRICS_COST_LEADS ?? 100_000);
const ENGINES = (process.env.METRICS_COST_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 5);
const { LEADLINE_METRICS_TOKEN: token, ...OFF_ENV } = SERVER_ENV;
const TICK_US = 1e6 / 100; // USER_HZ

type Variant = 'on' | 'off' | 'control';
const VARIANTS: [Variant, Record<string, string>][] = [
  ['on', SERVER_ENV],
  ['off', OFF_ENV],
  ['control', OFF_ENV],
];

/** CPU time the process has used, in µs (utime + stime of /proc/<pid>/stat). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/** Time the process's threads spent runnable but waiting for a CPU, in µs (schedstat's second field). */
function waitMicros(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1000;
}

async function server(name: string, p: Prepared, env: Record<string, string>): Promise<Target> {
  const port = await freePort();
  const store = p.engine === 'sqlite' ? ['--db', p.where] : ['--database-url', p.where];
  return startPinned(
    name,
    0,
    [BIN, ...store, 'serve', '--port', String(port)],
    env,
    `http://127.0.0.1:${port}/healthz`,
  );
}

/** The three servers, started (and warmed up) in turn, group `g`'s variant first. */
async function startAll(p: Prepared, g: number): Promise<Map<Variant, Target>> {
  const servers = new Map<Variant, Target>();
  for (let i = 0; i < VARIANTS.length; i++) {
    const [v, env] = VARIANTS[(i + g) % VARIANTS.length]!;
    servers.set(v, await server(v, p, env));
  }
  // Warm-up: each server's code optimized before it is measured.
  for (const t of servers.values()) await drive(request(p, t), 2, 10);
  return servers;
}

const request = (p: Prepared, t: Target) => ({
  url: `${t.url}/api/pub/leads/getLastLead`,
  auth: `Bearer ${p.key}`,
});

const cpus = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '?';
const lines: string[] = [];
const file = join(dir, 'leads.ndjson');
await writeSeed(file, LEADS);
try {
  for (const engine of ENGINES) {
    const p = await prepare(engine, LEADS, file, LEADS);
    // Per group: each variant's per-round figures; a group's ratio is the median of its rounds'.
    const groups: {
      rps: Map<Variant, number[]>;
      cpu: Map<Variant, number[]>;
      wait: Map<Variant, number[]>;
    }[] = [];
    let errors = 0;
    for (let g = 0; g < GROUPS; g++) {
      const fresh = () => new Map<Variant, number[]>(VARIANTS.map(([v]) => [v, []]));
      const { rps, cpu, wait } = { rps: fresh(), cpu: fresh(), wait: fresh() };
      groups.push({ rps, cpu, wait });
      const servers = await startAll(p, g);
      for (let round = 0; round < ROUNDS; round++) {
        // Each variant first, second and third in turn.
        const order = VARIANTS.map((_, i) => VARIANTS[(i + round + g) % VARIANTS.length]![0]);
        if (round % 2 === 1) order.reverse();
        for (const v of order) {
          const t = servers.get(v)!;
          const c0 = cpuMicros(t.child.pid!);
          const w0 = waitMicros(t.child.pid!);
          const m = await drive(request(p, t), SECONDS, 10);
          const n = m.rps * SECONDS;
          cpu.get(v)!.push((cpuMicros(t.child.pid!) - c0) / n);
          wait.get(v)!.push((waitMicros(t.child.pid!) - w0) / n);
          // A few timeouts when the machine is overloaded are reported; more fail the run.
          if (m.errors > n / 100) throw new Error(`${v}: ${m.errors} errors of ${Math.round(n)} requests`);
          errors += m.errors;
          rps.get(v)!.push(m.rps);
          if (v === 'on') {
            const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
            if (
              !(await res.text()).includes('leadline_http_requests_total{route="/api/pub/leads/getLastLead"')
            )
              throw new Error('the server with metrics on did not count the load');
          }
        }
      }
      for (const t of servers.values()) await stop(t);
      const ratio = (v: Variant) => median(rps.get(v)!.map((x, i) => x / rps.get('off')![i]!)).toFixed(2);
      log(
        `${engine} group ${g + 1} of ${GROUPS}: off ${Math.round(median(rps.get('off')!))} req/s ` +
          `(${Math.round(Math.min(...rps.get('off')!))}–${Math.round(Math.max(...rps.get('off')!))}); ` +
          `on ÷ off ${ratio('on')}, control ÷ off ${ratio('control')}; CPU µs/request on ` +
          `${median(cpu.get('on')!).toFixed(0)}, off ${median(cpu.get('off')!).toFixed(0)}, control ${median(cpu.get('control')!).toFixed(0)}`,
      );
    }
    if (errors > 0) log(`${engine}: ${errors} requests failed (timeouts of an overloaded machine)`);
    const all = (k: 'rps' | 'cpu' | 'wait', v: Variant) => groups.flatMap((x) => x[k].get(v)!);
    for (const v of ['on', 'control'] as const) {
      const byGroup = groups.map((x) => median(x.rps.get(v)!.map((r, i) => r / x.rps.get('off')![i]!)));
      const cpuByGroup = groups.map((x) => median(x.cpu.get(v)!) / median(x.cpu.get('off')!));
      const rounds = groups.flatMap((x) => x.rps.get(v)!.map((r, i) => r / x.rps.get('off')![i]!));
      const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
      lines.push(
        `| ${engine} | ${v === 'on' ? 'metrics on' : 'control (off again)'} | ${Math.round(median(all('rps', v)))} / ${Math.round(median(all('rps', 'off')))} | ${median(byGroup).toFixed(2)} (groups ${range(byGroup)}; rounds ${range(rounds)}) | ${rounds.filter((r) => r > 1).length} of ${rounds.length} | ${median(cpuByGroup).toFixed(2)} (${range(cpuByGroup)}) | ${median(all('wait', v)).toFixed(0)} / ${median(all('wait', 'off')).toFixed(0)} µs |`,
      );
    }
  }
} finally {
  await removeStores();
}
console.log(
  `\ngetLastLead, 10 connections, ${LOADGEN} on CPUs ${cpus}, servers on CPU 0, ${GROUPS} groups of fresh servers, each ${ROUNDS} alternated rounds of ${SECONDS} s, ${LEADS} leads; medians (spreads)`,
);
console.log(
  '| engine | server | req/s (vs off) | ÷ off: median of the groups (spread of groups; of rounds) | rounds above off | CPU per request ÷ off (groups) | run-queue wait per request (vs off) |',
);
console.log('|---|---|---|---|---|---|---|');
for (const l of lines) console.log(l);
