import { createKey } from '../src/keys/create-key.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';

/**
 * A new legacy-v1 key for member 1 of the store at `where` (a SQLite file for `--db`, else a
 * PostgreSQL URL), the store migrated first and closed after: what the single-server benches
 * read with.
 */
export async function memberOneKey(flag: '--db' | '--database-url', where: string): Promise<string> {
  const store = flag === '--db' ? SqliteStore.open(where) : PostgresStore.open(where);
  try {
    await store.migrate();
    return (await createKey(store, { member: 1, legacyV1: true })).key;
  } finally {
    await store.close();
  }
}
