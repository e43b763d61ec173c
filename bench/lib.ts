import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const BIN = fileURLToPath(new URL('../bin/leadline.js', import.meta.url));

/**
 * leadline's environment in every bench: quiet logs, no rate limit between the load and its
 * answers, and metrics on (issue 17: the P1 ratio is measured with them; the token only turns
 * them on, nothing scrapes during a load).
 */
export const SERVER_ENV = {
  LOG_LEVEL: 'warn',
  LEADLINE_RATE_LIMIT: '1000000000',
  LEADLINE_METRICS_TOKEN: 'bench-metrics-token-0123456789',
};

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

export interface Target {
  name: string;
  url: string;
  child: ChildProcess;
}

/**
 * Starts `node <args>` pinned to `cpu` (taskset: a CPU, or a list like `0,1`), waits until GET
 * `ready` answers. `onLine`, if given, receives each line the process writes to stdout
 * (otherwise stdout is discarded).
 */
export async function startPinned(
  name: string,
  cpu: number | string,
  args: string[],
  env: Record<string, string>,
  ready: string,
  onLine?: (line: string) => void,
): Promise<Target> {
  const child = spawn('taskset', ['-c', String(cpu), process.execPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', onLine === undefined ? 'ignore' : 'pipe', 'inherit'],
  });
  if (onLine !== undefined) {
    let pending = '';
    child.stdout!.on('data', (d: Buffer) => {
      const lines = (pending + d.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  const t0 = Date.now();
  for (;;) {
    try {
      if ((await fetch(ready)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > 30_000) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url: new URL(ready).origin, child };
}

export async function stop(target: Target): Promise<void> {
  if (target.child.exitCode !== null) return;
  target.child.kill('SIGTERM');
  await once(target.child, 'exit');
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Drives `url` with autocannon for `seconds`; non-2xx answers count as errors. */
export async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 10,
): Promise<LoadResult> {
  const r = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function machine(): string {
  const cpu = execSync("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", { encoding: 'utf8' }).trim();
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  return `${cpu}, ${cpus().length} cores, Node ${process.version}, commit ${commit}, ${new Date().toISOString()}`;
}
