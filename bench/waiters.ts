/**
 * Issue 41's waiting-clients bar: W clients waiting on one `leadline serve` (half Server-Sent
 * Events, half long-poll re-issuing `wait=30`) on GET /api/pub/v2/leads/changes — the feed
 * machinery (src/http/waiting-feed.ts, sse.ts) that /api/pub/v2/events shares. Measures:
 *
 * - the server's resident memory (VmRSS, /proc/<pid>/status) before the clients and with them
 *   all connected → memory per waiting client;
 * - v1 getLastLead probes at a fixed rate (one every 5 ms, timed from send to last byte, as
 *   bench/erasure-load.ts sends them), p50/p99 for PROBE_SECONDS without the waiters, then as
 *   long with them (a window as long as a long-poll's wait, so every poller re-issues in it and
 *   every stream sends its heartbeats), in the same run on the same server;
 * - FANOUT leads created one at a time: from the POST being sent to each client's parse of the
 *   lead, p50/p99/max over all W × FANOUT receipts (by kind too);
 * - a restart: a lead is created and, as soon as its POST has answered, the server is killed
 *   (SIGKILL by default; BENCH_KILL_SIGNAL=SIGTERM) while the fan-out is under way; it is started
 *   again on the same port and store, RESTART_LEADS more leads are created at once (while the
 *   clients are still coming back), and every client must hold every lead created since it
 *   started, exactly once and in order: SSE clients resume with Last-Event-ID, long-pollers
 *   with their last pollCursor.
 *
 *   ulimit -n 30000   # W client sockets in this process, W in the server's: each needs W + a few hundred
 *   taskset -c 1 node --import tsx bench/waiters.ts [sqlite|postgres] [W]
 *
 * The server is pinned to CPU 0 (bench/lib.ts startPinned); this process (probes, orchestration)
 * and its client worker threads (bench/waiters-clients.mjs, BENCH_CLIENT_WORKERS, 2 by default)
 * share CPU 1, the client threads at nice 19 so the probes go first. Knobs: BENCH_PROBE_SECONDS (35), BENCH_FANOUT (5), BENCH_RESTART_LEADS (5), BENCH_CATCH_UP_SECONDS (120),
 * BENCH_BUILD=0 (run dist/ as it is), BENCH_SMOKE=1 (200 clients, short windows), BENCH_PROFILE=1 (CPU
 * profiles of the server, bench/harness/config.ts; with BENCH_KILL_SIGNAL=SIGTERM so the first is written).
 */
import { execSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { type Engine, log, PROFILE, PROFILE_DIR, SMOKE } from './harness/config.js';
import { writeSeed } from './harness/seed-file.js';
import { dir, prepare, removeStores } from './harness/stores.js';
import { BIN, freePort, machine, SERVER_ENV, startPinned, type Target } from './lib.js';
import { probeOk, quantile } from './load.js';

const env = process.env;
const engine = (process.argv[2] ?? 'sqlite') as Engine;
const W = Number(process.argv[3] ?? (SMOKE ? 200 : 10_000));
const WORKERS = Number(env.BENCH_CLIENT_WORKERS ?? 2);
const PROBE_MS = Number(env.BENCH_PROBE_SECONDS ?? (SMOKE ? 3 : 35)) * 1000;
const EVERY_MS = 5;
const FANOUT = Number(env.BENCH_FANOUT ?? (SMOKE ? 2 : 5));
const RESTART_LEADS = Number(env.BENCH_RESTART_LEADS ?? (SMOKE ? 2 : 5));
const KILL = (env.BENCH_KILL_SIGNAL ?? 'SIGKILL') as NodeJS.Signals;
/** How long every client may take to have a lead, fan-out or after the restart. */
const CATCH_UP_MS = Number(env.BENCH_CATCH_UP_SECONDS ?? 120) * 1000;
const SEED_LEADS = 1_000;
const CHANGES = '/api/pub/v2/leads/changes';

const probeAgent = new Agent({ keepAlive: true, maxSockets: 256 });
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
/** The host's count of connections dropped for a full listen queue (each costs its client a SYN retransmit: 1 s, then 3 s, 7 s). */
const listenOverflows = (): number => {
  const [names, values] = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const i = names!.split(' ').indexOf('ListenOverflows');
  return Number(values!.split(' ')[i]);
};
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** The server's own metrics (SERVER_ENV turns them on): what a window did inside the server. */
async function scrape(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, {
    headers: { authorization: `Bearer ${SERVER_ENV.LEADLINE_METRICS_TOKEN}` },
  });
  return res.text();
}

/** Sums of a metric's samples by one label (`le`, `operation`), over the lines that match `where`. */
function byLabel(text: string, metric: string, label: string, where = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) || !line.includes(where)) continue;
    const value = new RegExp(`${label}="([^"]*)"`).exec(line)?.[1];
    if (value !== undefined)
      out.set(value, (out.get(value) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/**
 * Between two scrapes: getLastLead's p50/p99 as the server timed it (the histogram's bucket
 * bound, ms) — request received to answer written, without the client's or the kernel's share —
 * and the store operations that took the most time.
 */
function inside(before: string, after: string): string {
  const lastLead = 'route="/api/pub/leads/getLastLead"';
  const b0 = byLabel(before, 'leadline_http_request_duration_seconds_bucket', 'le', lastLead);
  const b1 = byLabel(after, 'leadline_http_request_duration_seconds_bucket', 'le', lastLead);
  const buckets = [...b1].map(([le, n]) => [le, n - (b0.get(le) ?? 0)] as const);
  const count = buckets.find(([le]) => le === '+Inf')?.[1] ?? 0;
  const bound = (q: number) => {
    const hit = buckets.find(([, n]) => n >= q * count)?.[0];
    return hit === undefined || hit === '+Inf' ? (hit ?? '?') : `${Number(hit) * 1000}`;
  };
  const q0 = byLabel(before, 'leadline_store_query_duration_seconds_sum', 'operation');
  const q1 = byLabel(after, 'leadline_store_query_duration_seconds_sum', 'operation');
  const n0 = byLabel(before, 'leadline_store_query_duration_seconds_count', 'operation');
  const n1 = byLabel(after, 'leadline_store_query_duration_seconds_count', 'operation');
  const top = [...q1]
    .map(([op, sum]) => [op, sum - (q0.get(op) ?? 0), (n1.get(op) ?? 0) - (n0.get(op) ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([op, sum, n]) => `${op} ${n}× ${(sum * 1000).toFixed(0)} ms`)
    .join(', ');
  return `server-timed getLastLead (${count}) p50 ≤ ${bound(0.5)} ms, p99 ≤ ${bound(0.99)} ms; store time: ${top}`;
}

/** One getLastLead, timed from the moment it is sent to its last byte. */
const getLastLead = (url: string, auth: string): Promise<number> => probeOk({ url, auth }, probeAgent);

/**
 * This process's own event-loop delay over each probe window (p99 and max, ms): a probe is sent
 * and read on this thread, so a delay here is the client's, not the server's.
 */
const clientDelays: string[] = [];

/** Probes at a fixed rate (sent whether the ones before answered or not) for `ms`. */
async function probes(url: string, auth: string, ms: number): Promise<number[]> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const times = await probesAtRate(url, auth, ms);
  delay.disable();
  // When the slowest 1 % were sent (second of the window: how many), to tell a periodic cause
  // (heartbeats, long-polls expiring together) from a scattered one.
  const cut = quantile(times, 0.99);
  const bySecond = new Map<number, number>();
  times.forEach((x, i) => {
    if (x < cut) return;
    const s = Math.floor((i * EVERY_MS) / 1000);
    bySecond.set(s, (bySecond.get(s) ?? 0) + 1);
  });
  const when = [...bySecond].map(([s, n]) => `${s}s:${n}`).join(' ');
  clientDelays.push(
    `p99 ${f(delay.percentile(99) / 1e6)} max ${f(delay.max / 1e6)} ms (slowest 1 % sent at ${when})`,
  );
  return times;
}

async function probesAtRate(url: string, auth: string, ms: number): Promise<number[]> {
  const sent: Promise<number>[] = [];
  const end = performance.now() + ms;
  for (let next = performance.now(); next < end; ) {
    // A refused probe (a 408 when the server held it past the request deadline) counts as never
    // answered, and the run goes on (an unhandled rejection would end it with the server left running).
    sent.push(getLastLead(url, auth).catch(() => Number.POSITIVE_INFINITY));
    next += EVERY_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  return Promise.all(sent);
}

class ClientWorker {
  private readonly worker: Worker;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  constructor(data: { base: string; key: string; sse: number; poll: number; cursor: string }) {
    this.worker = new Worker(new URL('./waiters-clients.mjs', import.meta.url), {
      workerData: data,
      execArgv: [],
    });
    this.worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id)!;
      this.pending.delete(m.id);
      if (m.error === undefined) p.resolve(m.result);
      else p.reject(new Error(m.error));
    });
    this.worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err);
    });
  }
  ask<T>(cmd: string, args: object = {}): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, cmd, ...args });
    });
  }
  async end(): Promise<void> {
    await this.ask('stop');
    await this.worker.terminate();
  }
}

async function createLead(
  base: string,
  key: string,
  name: string,
): Promise<{ leadId: string; sent: number }> {
  const sent = performance.timeOrigin + performance.now();
  const res = await fetch(`${base}/api/pub/v2/leads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      leadSource: 'QR_CODE_SCAN',
      captureDatetime: new Date().toISOString(),
      systemFields: { fullName: name },
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`create: ${res.status} ${text}`);
  return { leadId: (JSON.parse(text) as { data: { leadId: string } }).data.leadId, sent };
}

/** Resolves once all W clients hold `leadId`; its receipt times as ms after `sent`, by kind. */
async function fannedOut(
  workers: ClientWorker[],
  leadId: string,
  sent: number,
  ms = CATCH_UP_MS,
): Promise<{ sse: number[]; poll: number[] }> {
  const t0 = Date.now();
  for (;;) {
    const counts = await Promise.all(workers.map((w) => w.ask<number>('count', { leadId })));
    const n = counts.reduce((a, b) => a + b, 0);
    if (n === W) break;
    if (Date.now() - t0 > ms) {
      const lacking = await Promise.all(workers.map((w) => w.ask<unknown>('lacking', { leadId })));
      throw new Error(
        `${leadId}: ${n} of ${W} clients have it after ${ms} ms; without it: ${JSON.stringify(lacking)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const out = { sse: [] as number[], poll: [] as number[] };
  for (const w of workers) {
    const t = await w.ask<{ sse: number[]; poll: number[] }>('times', { leadId });
    out.sse.push(...t.sse.map((x) => x - sent));
    out.poll.push(...t.poll.map((x) => x - sent));
  }
  return out;
}

const f = (x: number) => x.toFixed(1);
const pcts = (xs: number[]) => `${f(quantile(xs, 0.5))} / ${f(quantile(xs, 0.99))} / ${f(Math.max(...xs))}`;

/** BENCH_SERVER_FLAGS: Node and V8 options for the server's process (space-separated), e.g. heap sizes. */
const SERVER_FLAGS = (env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((x) => x !== '');

/** BENCH_PROFILE=1: each server start writes a CPU profile to BENCH_PROFILE_DIR at its exit (SIGTERM, not SIGKILL). */
let starts = 0;
const profileFlags = (): string[] =>
  PROFILE
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${PROFILE_DIR}`,
        `--cpu-prof-name=waiters-${engine}-${++starts}.cpuprofile`,
      ]
    : [];

async function main(): Promise<void> {
  if (!SMOKE && env.BENCH_BUILD !== '0') execSync('npm run build', { stdio: 'ignore' });
  const file = join(dir, `waiters-${SEED_LEADS}.ndjson`);
  await writeSeed(file, SEED_LEADS);
  const p = await prepare(engine, SEED_LEADS, file, SEED_LEADS);
  const port = await freePort();
  const storeArgs = engine === 'sqlite' ? ['--db', p.where] : ['--database-url', p.where];
  const start = () =>
    startPinned(
      `leadline ${engine}`,
      0,
      [...profileFlags(), ...SERVER_FLAGS, BIN, ...storeArgs, 'serve', '--port', String(port)],
      SERVER_ENV,
      `http://127.0.0.1:${port}/healthz`,
    );
  let server: Target = await start();
  const base = server.url;
  const auth = `Bearer ${p.key}`;
  const last = `${base}/api/pub/leads/getLastLead`;
  const workers: ClientWorker[] = [];
  try {
    // Where the feed ends now: every client starts there (not at the seed's first lead).
    let cursor = '';
    for (let q = '?limit=1000'; ; ) {
      const res = await fetch(`${base}${CHANGES}${q}`, { headers: { authorization: auth } });
      const page = ((await res.json()) as { data: { nextCursor: string | null; pollCursor: string } }).data;
      cursor = page.pollCursor;
      if (page.nextCursor === null) break;
      q = `?limit=1000&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    await probes(last, auth, 2_000); // warm-up
    const pid = server.child.pid!;
    const loadBefore = load();
    let dropped = listenOverflows();
    let scraped = await scrape(base);
    const alone = await probes(last, auth, PROBE_MS);
    const clientDelayAlone = clientDelays.at(-1);
    const droppedAlone = listenOverflows() - dropped;
    const insideAlone = inside(scraped, await scrape(base));
    const rssBefore = rss(pid);
    log(
      `${engine}: without waiters getLastLead p99 ${f(quantile(alone, 0.99))} ms, RSS ${rssBefore} kB, load ${loadBefore}`,
    );

    const t0 = performance.now();
    for (let i = 0; i < WORKERS; i++) {
      const share = (n: number) => Math.floor(n / WORKERS) + (i < n % WORKERS ? 1 : 0);
      workers.push(new ClientWorker({ base, key: auth, sse: share(W / 2), poll: share(W - W / 2), cursor }));
    }
    await Promise.all(workers.map((w) => w.ask('open', { batch: 100 })));
    const connectS = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 3_000));
    const rssWith = rss(pid);
    const loadWith = load();
    dropped = listenOverflows();
    scraped = await scrape(base);
    const withWaiters = await probes(last, auth, PROBE_MS);
    const clientDelayWith = clientDelays.at(-1);
    const droppedWith = listenOverflows() - dropped;
    const insideWith = inside(scraped, await scrape(base));
    const rssAfterProbes = rss(pid);
    log(
      `${engine}: ${W} waiters connected in ${connectS.toFixed(1)} s; RSS ${rssWith} kB (${rssAfterProbes} after the probes); with waiters p99 ${f(quantile(withWaiters, 0.99))} ms, load ${loadWith}`,
    );

    const created: string[] = [];
    const receipts = { sse: [] as number[], poll: [] as number[] };
    for (let i = 0; i < FANOUT; i++) {
      const { leadId, sent } = await createLead(base, p.key, `Fan-out ${i}`);
      created.push(leadId);
      const t = await fannedOut(workers, leadId, sent);
      receipts.sse.push(...t.sse);
      receipts.poll.push(...t.poll);
    }
    const loadFanout = load();

    // The restart: a lead stored, the server killed while it fans out, started again.
    const killedOn = await createLead(base, p.key, 'Killed on');
    created.push(killedOn.leadId);
    server.child.kill(KILL);
    await once(server.child, 'exit');
    const down = performance.now();
    server = await start();
    const downMs = performance.now() - down;
    for (let i = 0; i < RESTART_LEADS; i++)
      created.push((await createLead(base, p.key, `After ${i}`)).leadId);
    const t1 = performance.now();
    for (const leadId of created.slice(-RESTART_LEADS)) await fannedOut(workers, leadId, 0);
    const backS = (performance.now() - t1) / 1000;
    const rssRestarted = rss(server.child.pid!);
    const checks = await Promise.all(
      workers.map((w) =>
        w.ask<{
          clients: number;
          exact: number;
          missing: number;
          repeated: number;
          reordered: number;
          reconnects: number;
        }>('verify', { leadIds: created }),
      ),
    );
    const sum = (k: keyof (typeof checks)[number]) => checks.reduce((a, c) => a + c[k], 0);
    const all = [...receipts.sse, ...receipts.poll];
    const perClient = ((rssWith - rssBefore) / W).toFixed(1);
    const ratio = quantile(withWaiters, 0.99) / quantile(alone, 0.99);
    console.log(`\nWaiting clients, ${engine}, W = ${W} (${W / 2} SSE + ${W / 2} long-poll) — ${machine()}`);
    console.log(
      `load (1/5/15 min): before ${loadBefore}; with waiters ${loadWith}; after the fan-out ${loadFanout}`,
    );
    console.log(
      '| engine | W | RSS before kB | RSS with W kB | per client KiB | getLastLead p50/p99 ms without | with W | p99 ratio | connect s |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${engine} | ${W} | ${rssBefore} | ${rssWith} | ${perClient} | ${f(quantile(alone, 0.5))} / ${f(quantile(alone, 0.99))} | ${f(quantile(withWaiters, 0.5))} / ${f(quantile(withWaiters, 0.99))} | ${ratio.toFixed(2)} | ${connectS.toFixed(1)} |`,
    );
    const slow = (xs: number[]) =>
      `${xs.filter((x) => x > 1000).length}${xs.some((x) => x === Number.POSITIVE_INFINITY) ? ` (${xs.filter((x) => x === Number.POSITIVE_INFINITY).length} refused)` : ''}`;
    console.log(
      `probes: ${alone.length} without, ${withWaiters.length} with (over 1 s: ${slow(alone)}, ${slow(withWaiters)}; max ${f(Math.max(...alone))}, ${f(Math.max(...withWaiters))} ms); connections the host dropped for a full listen queue in each window: ${droppedAlone}, ${droppedWith}; RSS after the with-waiters window ${rssAfterProbes} kB`,
    );
    console.log(`inside the server, without: ${insideAlone}`);
    console.log(`inside the server, with W: ${insideWith}`);
    console.log(
      `this process (the probes' client), event-loop delay without: ${clientDelayAlone}; with W: ${clientDelayWith}`,
    );
    console.log(`\nfan-out of ${FANOUT} leads to ${W} clients, ms from the POST sent (p50 / p99 / max):`);
    console.log(
      `| all | ${pcts(all)} |\n| SSE | ${pcts(receipts.sse)} |\n| long-poll | ${pcts(receipts.poll)} |`,
    );
    console.log(
      `\nrestart (${KILL} after a lead's POST answered): server back in ${f(downMs)} ms, ${RESTART_LEADS} leads created at once, all clients had them ${backS.toFixed(1)} s later; RSS after ${rssRestarted} kB`,
    );
    console.log(
      `verify over ${created.length} leads: ${sum('exact')} of ${sum('clients')} clients exact (every lead once, in order); missing ${sum('missing')}, repeated ${sum('repeated')}, reordered ${sum('reordered')}; reconnections ${sum('reconnects')}`,
    );
    if (sum('exact') !== W) throw new Error('some client missed, repeated or reordered a lead');
  } finally {
    for (const w of workers) await w.end().catch(() => {});
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  }
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  exitCode = 1;
} finally {
  await removeStores();
}
process.exit(exitCode);
