import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** The binary suites that start their own Redis run: LEADLINE_TEST_REDIS_SERVER, else `redis-server`. */
export const REDIS_SERVER = process.env.LEADLINE_TEST_REDIS_SERVER || 'redis-server';

/**
 * Why a suite that starts its own redis-server cannot run, or false. Under CI=true a binary that
 * cannot be run is an error: the suite fails, it is never skipped.
 */
export function redisServerSkip(env = process.env): string | false {
  const probe = spawnSync(REDIS_SERVER, ['--version']);
  if (probe.error === undefined && probe.status === 0) return false;
  const why = `${REDIS_SERVER} cannot be run (${probe.error?.message ?? `exit ${probe.status}`})`;
  if (env.CI === 'true')
    throw new Error(`CI=true but ${why}: the Redis outage suite cannot be skipped in CI`);
  return `needs ${REDIS_SERVER} (required under CI=true)`;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A redis-server of the test's own, on its own port and without persistence; stopped, paused and
 * started again (on the same port) by its own PID only.
 */
export class RedisServer {
  private child: ChildProcess | null = null;
  private paused = false;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port and waits until it accepts connections. */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.paused = false;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server not ready within 10 s: ${output}`)),
        10_000,
      );
      child.stdout?.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr?.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
  }

  /** Black-holes it: the process stops answering, its connections stay open (SIGSTOP). */
  pause(): void {
    this.child?.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    this.child?.kill('SIGCONT');
    this.paused = false;
  }

  /** Stops it and waits until it has exited. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    if (this.paused) this.resume();
    child.kill(signal);
    await exited;
  }
}
