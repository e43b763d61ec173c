import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real streaming-replication standby of the local PostgreSQL, made with pg_basebackup into
 * a temporary directory and run as the postgres user on a free port. Needs a `replication`
 * line in the primary's pg_hba.conf (.ci/run adds it; `replicationSkip` says when it is missing).
 */
export interface Standby {
  port: number;
  /** `url` with the standby's port instead of the primary's. */
  urlFor(url: string): string;
  stop(): void;
}

function bin(name: string): string {
  const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  return join(dir, name);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

function asPostgres(args: string[]): void {
  execFileSync('runuser', ['-u', 'postgres', '--', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

const HBA_LINE = 'host replication all 127.0.0.1/32 trust';

/**
 * Why no standby can be made of the primary at `url`, or false: it must accept a replication
 * connection from here (the pg_hba.conf line .ci/run adds). A newcomer's `npm test` skips the
 * read-replica test and says what to add; under CI=true the refusal fails the run instead.
 */
export function replicationSkip(url: string, env = process.env): string | false {
  const u = new URL(url);
  const conninfo = `host=${u.hostname.replace(/^\[(.*)\]$/, '$1')} port=${u.port || 5432} user=postgres replication=true connect_timeout=5`;
  try {
    execFileSync(bin('psql'), [conninfo, '-Atc', 'IDENTIFY_SYSTEM'], { stdio: ['ignore', 'pipe', 'pipe'] });
    return false;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
    const fix = `add \`${HBA_LINE}\` to pg_hba.conf, then SELECT pg_reload_conf(); .ci/run does`;
    if (env.CI === 'true')
      throw new Error(`CI=true but the primary refuses replication connections (${fix}): ${stderr}`);
    return `needs the primary to accept replication connections (${fix}): ${stderr}`;
  }
}

export async function startStandby(primaryHost: string, primaryPort: number): Promise<Standby> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-standby-'));
  const data = join(dir, 'data');
  chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const port = await freePort();
  try {
    asPostgres([
      bin('pg_basebackup'),
      '-h',
      primaryHost,
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`pg_basebackup failed (is replication allowed in pg_hba.conf?): ${stderr}`);
  }
  // Debian keeps the primary's configuration outside the data directory: give the standby its own.
  writeFileSync(
    join(data, 'postgresql.conf'),
    `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nhot_standby = on\n`,
  );
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  writeFileSync(join(data, 'pg_ident.conf'), '');
  execFileSync('chown', ['-R', 'postgres', dir]);
  asPostgres([bin('pg_ctl'), '-D', data, '-l', join(dir, 'standby.log'), '-w', '-t', '60', 'start']);
  return {
    port,
    urlFor(url: string) {
      const u = new URL(url);
      u.port = String(port);
      return u.toString();
    },
    stop() {
      try {
        asPostgres([bin('pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
