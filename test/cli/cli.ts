import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { StoreLocation } from '../../src/open-store.js';
import { BIN } from '../support/server-process.js';

export interface CliResult {
  /** The exit code; null when a signal ended the child (then `signal` names it). */
  status: number | null;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A child that runs longer than this is killed, and the test says so instead of hanging. */
const CLI_TIMEOUT_MS = 120_000;

/** Runs the installed `leadline` command (bin/leadline.js over the compiled CLI). */
export function leadline(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', ...options.env },
    timeout: CLI_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error !== undefined && r.status === null && r.signal === null) throw r.error;
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** What a failing test prints about a child: how it ended, its stderr and its stdout. */
export function describeRun(r: CliResult): string {
  const ended = r.status === null ? `killed by ${r.signal ?? 'a signal'}` : `exit status ${r.status}`;
  const cut = (s: string) => (s.length > 4000 ? `${s.slice(0, 4000)}… (${s.length} chars)` : s);
  return `leadline ended with ${ended}\n--- stderr:\n${cut(r.stderr) || '(empty)'}\n--- stdout:\n${cut(r.stdout) || '(empty)'}`;
}

/** `r`, after checking it succeeded (exit 0); else fails with how it ended, its stderr and stdout. */
export function succeeded(r: CliResult): CliResult {
  assert.equal(r.status, 0, describeRun(r));
  return r;
}

/**
 * The one JSON document a `--json` run printed, after checking the run ended with `status`
 * (0 unless told). Every failure — a wrong status, no output, output that is not one JSON
 * document — reports the child's exit status, stderr and stdout (never a bare "Unexpected end
 * of JSON input").
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read fields of documents of many shapes
export function jsonOf(r: CliResult, status = 0): any {
  assert.equal(r.status, status, describeRun(r));
  try {
    return JSON.parse(r.stdout);
  } catch (err) {
    assert.fail(`stdout is not one JSON document (${(err as Error).message})\n${describeRun(r)}`);
  }
}

/** The global options that point the `leadline` command at a store: `--db` or `--database-url`. */
export function storeArgs(location: StoreLocation): string[] {
  return location.databaseUrl === null ? ['--db', location.dbPath] : ['--database-url', location.databaseUrl];
}

/** A lead of Ana (member 4822 of Acme, the import tests' collector) as an import file holds it. */
export const anaLead = (id: string, epoch: number, extra: object = {}) => ({
  type: 'lead',
  userId: 4822,
  id,
  epoch,
  isLead: true,
  apptoapp: false,
  isManual: false,
  ...extra,
});
