import type { Command } from 'commander';
import { ImportError } from '../domain/import.js';
import { KeyCommandError } from '../domain/keys.js';
import type { Store } from '../domain/store.js';
import { MigrationError } from '../storage/migration-error.js';
import { openStore, StoreConfigError, type StoreLocation } from '../storage/open-store.js';
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

/** Runs a command's work with an open, migrated store; reports failures as one line and exit 1. */
export type CommandContext = (
  work: (ctx: Context) => Promise<void>,
  options?: { migrate: boolean },
) => Promise<void>;

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
  return async (work, options = { migrate: true }) => {
    const opts = program.opts<GlobalOptions>();
    const json = opts.json === true;
    let store: Store | null = null;
    try {
      store = await openStore(storeLocation(opts));
      if (options.migrate) await store.migrate();
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
