import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { migrate as migratePg } from '../../src/storage/postgres/migrations.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { migrate as migrateSqlite } from '../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import { schemaUrl, testDatabaseUrl } from '../support/engines.js';

/**
 * The upgrade tests' setup (*-upgrade.test.ts): a store that an older leadline left at schema
 * `version`, holding the rows `seed` writes as that version wrote them, opened by today's store
 * and handed to `use` (which migrates it and checks the result); closed, and removed, after.
 */

/** A SQLite file at `path` at `version`; `seed` also gets what migrating to it reported. */
export async function oldSqliteStore(
  path: string,
  version: number,
  seed: (db: Database.Database, migrated: ReturnType<typeof migrateSqlite>) => void,
  use: (store: SqliteStore) => Promise<void>,
): Promise<void> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const migrated = migrateSqlite(db, version);
  seed(db, migrated);
  db.close();
  const store = SqliteStore.open(path);
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

/** A PostgreSQL schema of its own at `version` (LEADLINE_TEST_DATABASE_URL), dropped after. */
export async function oldPostgresStore(
  version: number,
  seed: (sql: postgres.Sql, migrated: Awaited<ReturnType<typeof migratePg>>) => Promise<void>,
  use: (store: PostgresStore) => Promise<void>,
): Promise<void> {
  const url = testDatabaseUrl()!;
  const schema = `lt_${randomBytes(6).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const sql = postgres(schemaUrl(url, schema), { max: 1, onnotice: () => {} });
  let store: PostgresStore | null = null;
  try {
    await seed(sql, await migratePg(sql, version));
    await sql.end();
    store = PostgresStore.open(schemaUrl(url, schema));
    await use(store);
  } finally {
    await store?.close();
    await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}
