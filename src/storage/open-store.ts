import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export interface StoreLocation {
  dbPath: string;
  databaseUrl: string | null;
}

export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

/** Opens the store the configuration names: PostgreSQL when a database URL is given, else the SQLite file. */
export async function openStore(location: StoreLocation): Promise<Store> {
  if (location.databaseUrl !== null) {
    throw new StoreConfigError(
      'the PostgreSQL engine is not part of this release yet; use --db <file> (the embedded store) for now',
    );
  }
  return SqliteStore.open(location.dbPath);
}
