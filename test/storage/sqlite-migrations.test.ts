import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { LATEST_VERSION, migrate } from '../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import { MigrationError } from '../../src/store.js';
import { makeStore } from '../support/helpers.js';

/** Issue 2 §2: versioned migrations that fail loudly. */
describe('SQLite migrations', () => {
  test('a store newer than this leadline is refused, naming both versions', async () => {
    const { path, store, cleanup } = await makeStore();
    await store.close();
    const db = new Database(path);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      LATEST_VERSION + 1,
      'future',
      0,
    );
    assert.throws(
      () => migrate(db),
      (err) => err instanceof MigrationError && /newer than this leadline/.test(err.message),
    );
    db.close();
    await cleanup();
  });

  test('a migration that cannot apply fails with its name and leaves no version behind', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE teams (id INTEGER PRIMARY KEY)'); // a clash: migration 1 creates teams
    assert.throws(
      () => migrate(db),
      (err) => err instanceof MigrationError && /migration 1 \(core\) failed/.test(err.message),
    );
    assert.deepEqual(db.prepare('SELECT version FROM schema_migrations').all(), []);
    db.close();
  });

  test('a version-1 store with leads migrates to the latest, its leads indexed for search', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    db.exec(`INSERT INTO teams (id, name) VALUES (1, 'T');
      INSERT INTO members (id, team_id, email, role) VALUES (1, 1, 'm@t.test', 'member');
      INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared, fields,
        uuid, created_at) VALUES (1, 1, 'x1', 0, 't', 'p', 'connection', 0,
        '{"name":"José García","email":"jg@t.test"}', 'u1', 0)`);
    // The backfills write while reading the leads: once an open iteration, which better-sqlite3 refuses.
    assert.deepEqual(migrate(db).from, 1);
    const match = (q: string): unknown[] =>
      db.prepare('SELECT rowid FROM lead_text WHERE lead_text MATCH ?').pluck().all(q);
    assert.deepEqual(match('{full_name} : ("jos" AND "ose")'), [1]);
    assert.deepEqual(match('{email} : " jg"'), [1]);
    db.close();
  });

  test('the stores refuse to work on a schema that is not migrated', async () => {
    const store = SqliteStore.open(':memory:');
    assert.throws(() => store.leads, /run leadline migrate/);
    await store.close();
  });
});
