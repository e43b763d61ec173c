import { DEFAULT_POSTGRES_OPTIONS, type PostgresOptions, PostgresStore } from './storage/postgres/store.js';
import { backupSqlite } from './storage/sqlite/backup.js';
import { SqliteStore } from './storage/sqlite/store.js';
import type { Store } from './store.js';

export interface StoreLocation {
  dbPath: string;
  databaseUrl: string | null;
  /** PostgreSQL read replica for read-only work (DATABASE_READ_URL). */
  databaseReadUrl?: string | null;
}

export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

/** Opens the store the configuration names: PostgreSQL when a database URL is given, else the SQLite file. */
export async function openStore(
  location: StoreLocation,
  pg: PostgresOptions = DEFAULT_POSTGRES_OPTIONS,
): Promise<Store> {
  if (location.databaseUrl !== null) {
    if (!/^postgres(ql)?:\/\//.test(location.databaseUrl)) {
      throw new StoreConfigError('the database URL must start with postgres:// or postgresql://');
    }
    return PostgresStore.open(location.databaseUrl, pg, location.databaseReadUrl ?? null);
  }
  return SqliteStore.open(location.dbPath);
}

/** An online, consistent copy of a SQLite store's file (`leadline backup`; storage/sqlite/backup.ts). */
export function backupStoreFile(dbPath: string, destination: string): Promise<{ pages: number }> {
  return backupSqlite(dbPath, destination);
}
