import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import '../support/server-process.js'; // refuses to start on a stale dist/

/**
 * Issue 37 §1: the documented ways of running the service — `npm start` (README) and
 * `npx leadline serve` (docs/self-hosting.md) — put npm, and for npx a shell, between the caller
 * and the server. A SIGTERM to the pid the caller started ended npm and left the server running
 * on its port, so the next start failed with EADDRINUSE. Now the port is free within the
 * shutdown grace period.
 *
 * Issue 37 §5: the first `npx leadline …` of a checkout (here with an npm cache of its own, so it
 * is a first call) prepared the checkout, i.e. rebuilt dist/; it leaves a current dist/ alone.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GRACE_MS = 2000;

async function freePort(): Promise<number> {
  const probe = createServer().listen({ port: 0, host: '127.0.0.1' });
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls until `listening(port)` is `want`, for at most `ms`; returns whether it got there. */
async function until(port: number, want: boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    if ((await listening(port)) === want) return true;
  }
  return (await listening(port)) === want;
}

const WAYS: [string, string[]][] = [
  ['npm start', ['npm', 'start']],
  ['npx leadline serve', ['npx', 'leadline', 'serve']],
];

describe('started as the docs say, the service stops when the started process is signalled (issue 37 §1)', () => {
  for (const [name, [command, ...args]] of WAYS) {
    test(`${name}: SIGTERM to its pid frees the port within the grace period`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'leadline-npm-'));
      const port = await freePort();
      const built = statSync(join(ROOT, 'dist', '.built')).mtimeMs;
      let output = '';
      const child: ChildProcess = spawn(command as string, args, {
        cwd: ROOT,
        // Its own process group: whatever it leaves behind is ended by the group's id below.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          LEADLINE_DB: join(dir, 'leadline.db'),
          DATABASE_URL: '',
          LEADLINE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
          // A cache of its own: npx's first call of this checkout, whatever ran before.
          npm_config_cache: join(dir, 'npm-cache'),
          npm_config_offline: 'true',
          npm_config_update_notifier: 'false',
        },
      });
      for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d: Buffer) => (output += d));
      t.after(() => {
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {
          // the group has ended
        }
        rmSync(dir, { recursive: true, force: true });
      });
      assert.ok(await until(port, true, 120_000), `${name} never listened:\n${output}`);
      child.kill('SIGTERM');
      assert.ok(
        await until(port, false, GRACE_MS + 3000),
        `${name}: port ${port} still taken after SIGTERM to pid ${child.pid}:\n${output}`,
      );
      if (command === 'npx') {
        assert.equal(statSync(join(ROOT, 'dist', '.built')).mtimeMs, built, `dist/ was rebuilt:\n${output}`);
      }
    });
  }
});
