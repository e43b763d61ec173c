import assert from 'node:assert/strict';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import { leadline } from '../cli/cli.js';
import { startServerProcess, stopAll } from '../support/server-process.js';

/**
 * R16: the SQLite file holds leads, key hashes and the cursor secret. Created under the usual
 * umask 022 it used to be 0644, readable by every local user, and its -wal and -shm with it.
 * SQLite only: a PostgreSQL store has no file of leadline's. The CLI cases run the built
 * `leadline` (npm run build).
 */
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const store3 = (db: string) => [db, `${db}-wal`, `${db}-shm`];

describe('SQLite store file mode', () => {
  let dir: string;
  let umask: number;
  before(() => {
    umask = process.umask(0o022); // children spawned below inherit it
    dir = mkdtempSync(join(tmpdir(), 'leadline-mode-'));
  });
  after(async () => {
    await stopAll();
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a new store: the file, its -wal and -shm 0600, the directory made for it 0700', async () => {
    const db = join(dir, 'data', 'nested', 'leadline.db');
    const store = SqliteStore.open(db);
    try {
      await store.migrate();
      await store.secret('v2-cursor'); // a write: the WAL holds the secret now
      for (const f of store3(db)) assert.equal(modeOf(f), '600', f);
      assert.equal(modeOf(join(dir, 'data')), '700');
      assert.equal(modeOf(join(dir, 'data', 'nested')), '700');
    } finally {
      await store.close();
    }
  });

  test('`leadline migrate` creates the file 0600', () => {
    const db = join(dir, 'cli', 'leadline.db');
    const r = leadline(['--db', db, 'migrate']);
    assert.equal(r.status, 0, r.stderr);
    // The command closes the store on exit, and SQLite removes -wal and -shm with the last connection.
    assert.equal(modeOf(db), '600');
    assert.equal(modeOf(join(dir, 'cli')), '700');
  });

  test('`leadline serve` creates the file, -wal and -shm 0600', async () => {
    const db = join(dir, 'serve', 'leadline.db');
    const server = await startServerProcess(['--db', db]);
    try {
      const res = await fetch(`${server.url}/readyz`);
      assert.equal(res.status, 200);
      for (const f of store3(db)) assert.equal(modeOf(f), '600', f);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('an existing file keeps the mode its operator gave it, and -wal and -shm follow it', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o750 });
    const db = join(shared, 'leadline.db');
    closeSync(openSync(db, 'w'));
    chmodSync(db, 0o640);
    const store = SqliteStore.open(db);
    try {
      await store.migrate();
      await store.secret('v2-cursor');
      for (const f of store3(db)) assert.equal(modeOf(f), '640', f);
      assert.equal(modeOf(shared), '750');
    } finally {
      await store.close();
    }
  });
});
