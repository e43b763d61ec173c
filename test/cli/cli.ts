import { spawnSync } from 'node:child_process';
import type { StoreLocation } from '../../src/storage/open-store.js';
import { BIN } from '../server-process.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the installed `leadline` command (bin/leadline.js over the compiled CLI). */
export function leadline(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', ...options.env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The global options that point the `leadline` command at a store: `--db` or `--database-url`. */
export function storeArgs(location: StoreLocation): string[] {
  return location.databaseUrl === null ? ['--db', location.dbPath] : ['--database-url', location.databaseUrl];
}
