import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster of the suite's own (initdb in a temporary directory, run as the postgres
 * user on a free port), which R4 may kill -9 and start again without touching the shared server.
 */
export interface PrivatePostgres {
  url: string;
  /** SIGKILL to the postmaster: a crash, not a shutdown. */
  kill(): void;
  start(): void;
  destroy(): void;
}

const bin = (name: string) =>
  join(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim(), name);
const asPostgres = (args: string[]) =>
  execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-pg-'));
  const data = join(dir, 'data');
  chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const port = await freePort();
  asPostgres([bin('initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\n`,
  );
  execFileSync('chown', ['-R', 'postgres', dir]);
  const start = () =>
    asPostgres([bin('pg_ctl'), '-D', data, '-l', join(dir, 'pg.log'), '-w', '-t', '60', 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    kill() {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // The backends die with their postmaster's socket gone; wait until nothing listens.
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        execFileSync('sleep', ['0.05']);
      }
    },
    start,
    destroy() {
      try {
        asPostgres([bin('pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already down
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
