/**
 * Load generators and a small HTTP client for the bench: wrk when installed (µs latencies), else
 * autocannon (a devDependency; ms latencies); a keep-alive probe and a time-to-last-byte reader
 * for the big-answer scenario; the server's resident memory from /proc.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const LUA = fileURLToPath(new URL('./wrk.lua', import.meta.url));

export interface Req {
  url: string;
  auth?: string;
  method?: 'GET' | 'POST';
  body?: string;
}

export interface Measured {
  rps: number;
  /** milliseconds */
  p50: number;
  p99: number;
  errors: number;
}

export const HAVE_WRK =
  process.env.BENCH_LOADGEN !== 'autocannon' && spawnSync('wrk', ['-v']).error === undefined;
export const LOADGEN = HAVE_WRK ? 'wrk' : 'autocannon';

/** Drives `req` for `seconds` with `connections` keep-alive connections, on CPU `cpu`. */
export async function drive(req: Req, seconds: number, connections: number, cpu = 1): Promise<Measured> {
  if (!HAVE_WRK) {
    const r = await autocannon({
      url: req.url,
      method: req.method ?? 'GET',
      headers: {
        ...(req.auth ? { authorization: req.auth } : {}),
        ...(req.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(req.body ? { body: req.body } : {}),
      duration: seconds,
      connections,
    });
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
  }
  const child = spawn(
    'taskset',
    ['-c', String(cpu), 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '-s', LUA, req.url],
    {
      env: {
        ...process.env,
        BENCH_METHOD: req.method ?? 'GET',
        BENCH_BODY: req.body ?? '',
        BENCH_AUTH: req.auth ?? '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('BENCH '));
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}): ${out}`);
  const s = JSON.parse(line.slice(6)) as Record<string, number>;
  return {
    rps: s.requests! / (s.duration_us! / 1e6),
    p50: s.p50_us! / 1000,
    p99: s.p99_us! / 1000,
    errors: s.non2xx! + s.errors!,
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/**
 * One request on a kept-alive connection (`via`: an agent of the caller's, for probes sent at a
 * fixed rate over many sockets); resolves with the status and milliseconds to the last byte.
 */
export function probe(req: Req, via: Agent = agent): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const r = request(
      req.url,
      { agent: via, method: req.method ?? 'GET', headers: req.auth ? { authorization: req.auth } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/** A probe that must answer 200: its milliseconds, or a rejection naming the status. */
export async function probeOk(req: Req, via: Agent = agent): Promise<number> {
  const { status, ms } = await probe(req, via);
  if (status !== 200) throw new Error(`${req.url}: ${status}`);
  return ms;
}

/** Reads a whole answer, discarding it; milliseconds to the last byte and the byte count. */
export function readAll(req: Req): Promise<{ status: number; ms: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const r = request(
      req.url,
      { agent: false, headers: req.auth ? { authorization: req.auth } : {} },
      (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, bytes }));
      },
    );
    r.on('error', reject);
    r.end();
  });
}

/** Resident set size of process `pid` in bytes (VmRSS of /proc/<pid>/status). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
