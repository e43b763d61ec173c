import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { makeEngineStore, testDatabaseUrl } from '../engines.js';

/** Issue 3 §3: both migrated schemas expose the same tables and columns. */
describe('schema parity', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  test('SQLite and PostgreSQL: the same tables, the same columns', async () => {
    const lite = await makeEngineStore('sqlite');
    const pg = await makeEngineStore('postgres');
    try {
      const db = new Database(lite.location.dbPath, { readonly: true });
      const sqliteTables: Record<string, string[]> = {};
      const names = db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as { name: string }[];
      for (const { name } of names) {
        sqliteTables[name] = (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[])
          .map((c) => c.name)
          .sort();
      }
      db.close();

      const sql = postgres(pg.location.databaseUrl!, { max: 1 });
      const rows = await sql<{ table_name: string; column_name: string }[]>`SELECT table_name, column_name
        FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`;
      await sql.end();
      const pgTables: Record<string, string[]> = {};
      for (const r of rows) pgTables[r.table_name] = [...(pgTables[r.table_name] ?? []), r.column_name];

      assert.ok(Object.keys(sqliteTables).includes('leads'));
      // Rate-limit counters shared by instances: only a shared engine has them (one process serves SQLite).
      const PG_ONLY = ['rate_limits'];
      for (const t of PG_ONLY) {
        assert.ok(pgTables[t], `${t} exists on PostgreSQL`);
        delete pgTables[t];
      }
      assert.deepEqual(pgTables, sqliteTables);
    } finally {
      await lite.cleanup();
      await pg.cleanup();
    }
  });
});
