import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isWellFormedKey } from '../../src/domain/api-key.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { auth, makeApp } from '../helpers.js';
import { leadline } from './cli.js';

let dir: string;
let db: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-keys-'));
  db = join(dir, 'leadline.db');
  const file = join(dir, 'people.ndjson');
  writeFileSync(
    file,
    [
      { type: 'team', id: 1, name: 'Acme' },
      { type: 'member', id: 7, teamId: 1, email: 'ana@acme.test', role: 'admin', pid: '70' },
      { type: 'lead', userId: 7, id: '1', epoch: 1000, isLead: true },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  assert.equal(leadline(['--db', db, 'import', file]).status, 0);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Calls getLastLead through the real app on the same store file the CLI writes. */
async function status(key: string): Promise<number> {
  const store = SqliteStore.open(db);
  try {
    const app = await makeApp(store);
    return (await app.inject({ url: '/api/pub/leads/getLastLead', headers: auth(key) })).statusCode;
  } finally {
    await store.close();
  }
}

describe('leadline keys (import-format.md, issue 2 §5)', () => {
  test('create prints {id, key, memberId} once; the key works; the store never holds it', async () => {
    const r = leadline([
      '--db',
      db,
      'keys',
      'create',
      '--member',
      'ana@acme.test',
      '--label',
      'crm',
      '--json',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(doc).sort(), ['id', 'key', 'memberId']);
    assert.equal(doc.memberId, 7);
    assert.ok(isWellFormedKey(doc.key));
    assert.match(doc.key, /^llk_/);
    assert.equal(await status(doc.key), 200);
    const bytes =
      readFileSync(db).toString('latin1') + readFileSync(`${db}-wal`, { flag: 'a+' }).toString('latin1');
    assert.ok(!bytes.includes(doc.key.slice(12)), 'the secret part of the key is not in the store file');
  });

  test('list shows keys without the secret', () => {
    const created = JSON.parse(leadline(['--db', db, 'keys', 'create', '--member', '7', '--json']).stdout);
    const r = leadline(['--db', db, 'keys', 'list', '--member', '7', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes(created.key));
    const listed = JSON.parse(r.stdout).keys.find((k: { id: number }) => k.id === created.id);
    assert.equal(listed.status, 'active');
    assert.equal(listed.prefix, created.key.slice(0, 12));
    const human = leadline(['--db', db, 'keys', 'list']);
    assert.equal(human.status, 0);
    assert.ok(!human.stdout.includes(created.key));
  });

  test('revoke: refused from the next request on; revoking again fails', async () => {
    const created = JSON.parse(leadline(['--db', db, 'keys', 'create', '--member', '7', '--json']).stdout);
    assert.equal(await status(created.key), 200);
    const r = leadline(['--db', db, 'keys', 'revoke', String(created.id), '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { id: created.id, revoked: true });
    assert.equal(await status(created.key), 401);
    const again = leadline(['--db', db, 'keys', 'revoke', String(created.id)]);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /no active key/);
  });

  test('--expires: a future expiry is listed; a past one or a non-date is refused', () => {
    const ok = leadline(['--db', db, 'keys', 'create', '--member', '7', '--expires', '2099-01-01', '--json']);
    assert.equal(ok.status, 0, ok.stderr);
    const id = JSON.parse(ok.stdout).id;
    const listed = JSON.parse(leadline(['--db', db, 'keys', 'list', '--json']).stdout).keys.find(
      (k: { id: number }) => k.id === id,
    );
    assert.equal(listed.expiresAt, '2099-01-01T00:00:00.000Z');
    assert.notEqual(
      leadline(['--db', db, 'keys', 'create', '--member', '7', '--expires', '2001-01-01']).status,
      0,
    );
    const bad = leadline(['--db', db, 'keys', 'create', '--member', '7', '--expires', 'tomorrow']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /not an ISO date/);
  });

  test('--legacy-v1 is recorded', () => {
    const id = JSON.parse(
      leadline(['--db', db, 'keys', 'create', '--member', '7', '--legacy-v1', '--json']).stdout,
    ).id;
    const listed = JSON.parse(leadline(['--db', db, 'keys', 'list', '--json']).stdout).keys.find(
      (k: { id: number }) => k.id === id,
    );
    assert.equal(listed.legacyV1, true);
  });

  test('an unknown member is a one-line error and, with --json, one error document', () => {
    const r = leadline(['--db', db, 'keys', 'create', '--member', 'nobody@acme.test', '--json']);
    assert.notEqual(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(JSON.parse(r.stdout).error.message, /no member/);
  });
});
