import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';

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
      // Every difference allowed, each with its reason; anything else is drift.
      const PG_ONLY_TABLES: Record<string, string> = {
        rate_limits: 'counters shared by instances; one process serves SQLite and counts in memory',
      };
      const PG_ONLY_COLUMNS: Record<string, Record<string, string>> = {
        leads: {
          txid: 'change-feed order held at the oldest running transaction; SQLite has one writer, seq suffices',
          text_fields: 'folded text per field for rechecks; SQLite re-derives it from leads.fields',
          search: 'folded text joined for the pg_trgm GIN index; SQLite searches lead_text instead',
        },
        webhook_events: { txid: 'event-log order held at the oldest running transaction, as the feed' },
        event_horizons: { txid: 'the horizon is a (txid, seq) position, as the event log orders' },
      };
      const SQLITE_ONLY_TABLES: Record<string, string> = {
        lead_text: 'contentless FTS5 trigram index of the searchable text (PostgreSQL: leads.search)',
        lead_text_config: 'FTS5 shadow table of lead_text',
        lead_text_data: 'FTS5 shadow table of lead_text',
        lead_text_docsize: 'FTS5 shadow table of lead_text',
        lead_text_idx: 'FTS5 shadow table of lead_text',
        feed_clock:
          'the change feed positions (leads.pos) drawn under the one writer; PostgreSQL orders by txid',
      };
      const SQLITE_ONLY_COLUMNS: Record<string, Record<string, string>> = {
        leads: { pos: "the lead's place in the change feed, moved by each change; PostgreSQL: (txid, seq)" },
      };
      for (const [t, columns] of Object.entries(SQLITE_ONLY_COLUMNS)) {
        for (const c of Object.keys(columns)) {
          assert.ok(sqliteTables[t]?.includes(c), `${t}.${c} exists on SQLite`);
          sqliteTables[t] = sqliteTables[t]!.filter((name) => name !== c);
        }
      }
      for (const t of Object.keys(PG_ONLY_TABLES)) {
        assert.ok(pgTables[t], `${t} exists on PostgreSQL`);
        delete pgTables[t];
      }
      for (const [t, columns] of Object.entries(PG_ONLY_COLUMNS)) {
        for (const c of Object.keys(columns)) {
          assert.ok(pgTables[t]?.includes(c), `${t}.${c} exists on PostgreSQL`);
          pgTables[t] = pgTables[t]!.filter((name) => name !== c);
        }
      }
      for (const t of Object.keys(SQLITE_ONLY_TABLES)) {
        assert.ok(sqliteTables[t], `${t} exists on SQLite`);
        delete sqliteTables[t];
      }
      assert.deepEqual(pgTables, sqliteTables);
    } finally {
      await lite.cleanup();
      await pg.cleanup();
    }
  });
});
