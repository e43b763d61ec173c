import { spawnSync } from 'node:child_process';
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
