import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { ImportError } from '../import/import-error.js';
import { KeyCommandError } from '../keys/create-key.js';
import { openStore, StoreConfigError, type StoreLocation } from '../open-store.js';
import type { Store } from '../store.js';
import { MigrationError } from '../store.js';
import { CommandError } from './command-error.js';
import { fail, makeOutput, type Output } from './output.js';

export interface GlobalOptions {
  db?: string;
  databaseUrl?: string;
  json?: boolean;
}

export interface Context {
  store: Store;
  out: Output;
}

/**
 * Runs a command's work with an open, migrated store; reports failures as one line and exit 1.
 * `readOnly`: the command only reads, so it never creates a store — a store file or PostgreSQL
 * schema that is not there is `no store at …`, not an empty report.
 */
export type CommandContext = (
  work: (ctx: Context) => Promise<void>,
  options?: { migrate?: boolean; readOnly?: boolean },
) => Promise<void>;

/** Where the store is, for messages: the file, or the URL without its password. */
export function describeLocation(location: StoreLocation): string {
  if (location.databaseUrl === null) return location.dbPath;
  try {
    const url = new URL(location.databaseUrl);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'the PostgreSQL database given';
  }
}

/** import-format.md: `--db` or `--database-url`; else `DATABASE_URL`; else `./data/leadline.db`. */
export function storeLocation(opts: GlobalOptions, env = process.env): StoreLocation {
  if (opts.db !== undefined) return { dbPath: opts.db, databaseUrl: null };
  const databaseUrl = opts.databaseUrl ?? (env.DATABASE_URL || undefined);
  return { dbPath: env.LEADLINE_DB || './data/leadline.db', databaseUrl: databaseUrl ?? null };
}

/** Errors whose message is meant for the operator as it is; anything else is unexpected. */
export function isExpected(err: unknown): err is Error {
  return (
    err instanceof ImportError ||
    err instanceof KeyCommandError ||
    err instanceof CommandError ||
    err instanceof MigrationError ||
    err instanceof StoreConfigError ||
    (err instanceof Error && err.name === 'ConfigError')
  );
}

export function contextFor(program: Command): CommandContext {
  return async (work, options = {}) => {
    const opts = program.opts<GlobalOptions>();
    const json = opts.json === true;
    let store: Store | null = null;
    try {
      const location = storeLocation(opts);
      const missing = new CommandError(
        `no store at ${describeLocation(location)} (give --db or --database-url; \`leadline import\` or \`leadline seed\` makes one)`,
      );
      if (options.readOnly === true && location.databaseUrl === null && !existsSync(location.dbPath))
        throw missing;
      store = await openStore(location);
      if (options.readOnly === true && !(await store.exists())) throw missing;
      if (options.migrate !== false) await store.migrate();
      await work({ store, out: makeOutput(json) });
    } catch (err) {
      await store?.close();
      store = null;
      fail(json, isExpected(err) ? err.message : `unexpected error: ${(err as Error).message}`);
    } finally {
      await store?.close();
    }
  };
}
