import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { startServerProcess, stopAll } from '../support/server-process.js';
import { jsonOf, leadline, succeeded } from './cli.js';

/**
 * Issue 37 §6: `leadline backup <file>` copies a SQLite store with SQLite's online backup while
 * `serve` runs on it and writes to it: the copy is a whole store (integrity check, the same
 * teams), owner-only, and never overwrites a file. A PostgreSQL store is pg_dump's business.
 */
after(() => stopAll());

describe('leadline backup (issue 37 §6)', () => {
  test('an online, consistent, owner-only copy of a store serve is writing to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-backup-'));
    const db = join(dir, 'leadline.db');
    const server = await startServerProcess(['--db', db], { LOG_LEVEL: 'info' }, ['--demo']);
    try {
      const copy = join(dir, 'copy.db');
      // Requests write while the copy is made (each key authentication records its use).
      const traffic = Promise.all(
        Array.from({ length: 50 }, () => fetch(`${server.url}/readyz`).then((r) => r.arrayBuffer())),
      );
      const made = jsonOf(leadline(['--json', '--db', db, 'backup', copy]));
      await traffic;
      assert.equal(made.file, copy);
      assert.ok(made.pages > 0);
      assert.equal(statSync(copy).mode & 0o777, 0o600);
      const check = new Database(copy, { readonly: true });
      assert.equal((check.pragma('integrity_check', { simple: true }) as string) ?? '', 'ok');
      check.close();
      const teams = (args: string[]) => succeeded(leadline(['--db', ...args, 'teams', 'list'])).stdout;
      assert.equal(teams([copy]), teams([db]));
      const again = leadline(['--db', db, 'backup', copy]);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /exists: give a file that does not/);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('refuses a PostgreSQL store and a missing file, with a message', () => {
    const pg = leadline(['--database-url', 'postgres://nobody@127.0.0.1:1/x', 'backup', 'x.db']);
    assert.equal(pg.status, 1);
    assert.match(pg.stderr, /pg_dump/);
    const missing = leadline(['--db', join(tmpdir(), 'no-such-leadline.db'), 'backup', 'x.db']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no store at/);
  });
});
