// tier: quick — in `npm run test:quick` (README "Test it"): fast, SQLite only
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isWellFormedKey } from '../../src/keys/token.js';
import { openStore, type StoreLocation } from '../../src/open-store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, makeApp } from '../support/helpers.js';
import { describeRun, jsonOf, leadline, storeArgs } from './cli.js';
import { dumpLocation } from './store-dump.js';

let dir: string;
let people: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-keys-'));
  people = join(dir, 'people.ndjson');
  writeFileSync(
    people,
    [
      { type: 'team', id: 1, name: 'Acme' },
      { type: 'member', id: 7, teamId: 1, email: 'ana@acme.test', role: 'admin', pid: '70' },
      { type: 'lead', userId: 7, id: '1', epoch: 1000, isLead: true },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Calls getLastLead through the real app on the same store the CLI writes. */
async function status(location: StoreLocation, key: string): Promise<number> {
  const store = await openStore(location);
  try {
    const app = await makeApp(store);
    // v2: a key made now is a new integration, which v1 refuses after its freeze.
    return (await app.inject({ url: '/api/pub/v2/leads/changes', headers: auth(key) })).statusCode;
  } finally {
    await store.close();
  }
}

/** Every value of every row of a store dump, as text (binary values both as bytes and as hex). */
function storedText(dump: Record<string, unknown[]>): string {
  const parts: string[] = [];
  for (const rows of Object.values(dump))
    for (const row of rows as Record<string, unknown>[])
      for (const v of Object.values(row))
        parts.push(Buffer.isBuffer(v) ? `${v.toString('latin1')}\n${v.toString('hex')}` : String(v));
  return parts.join('\n');
}

for (const engine of enginesUnderTest()) {
  describe(`leadline keys (import-format.md, issue 2 §5) (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      const r = leadline([...cli, 'import', people]);
      assert.equal(r.status, 0, describeRun(r));
    });
    after(() => made.cleanup());

    test('create prints {id, key, memberId} once; the key works; the store never holds it', async () => {
      const r = leadline([...cli, 'keys', 'create', '--member', 'ana@acme.test', '--label', 'crm', '--json']);
      const doc = jsonOf(r);
      assert.deepEqual(Object.keys(doc).sort(), ['id', 'key', 'memberId']);
      assert.equal(doc.memberId, 7);
      assert.ok(isWellFormedKey(doc.key));
      assert.match(doc.key, /^llk_/);
      assert.equal(await status(made.location, doc.key), 200);
      const secret = doc.key.slice(12);
      // On every engine: no column of any row holds the secret (the key's row is there, by its id).
      const dump = await dumpLocation(made.location);
      assert.ok(
        (dump.api_keys as { id: number }[]).some((k) => k.id === doc.id),
        'the key has its row in api_keys',
      );
      assert.ok(
        !storedText(dump).includes(secret),
        'the secret part of the key is in no column of the store',
      );
      if (engine === 'sqlite') {
        // The SQLite store is a file (and its write-ahead log): the secret is in none of their bytes.
        const db = made.location.dbPath;
        const bytes =
          readFileSync(db).toString('latin1') + readFileSync(`${db}-wal`, { flag: 'a+' }).toString('latin1');
        assert.ok(!bytes.includes(secret), 'the secret part of the key is not in the store file');
      }
    });

    test('list shows keys without the secret', () => {
      const created = jsonOf(leadline([...cli, 'keys', 'create', '--member', '7', '--json']));
      const r = leadline([...cli, 'keys', 'list', '--member', '7', '--json']);
      assert.equal(r.status, 0, describeRun(r));
      assert.ok(!r.stdout.includes(created.key));
      const listed = jsonOf(r).keys.find((k: { id: number }) => k.id === created.id);
      assert.equal(listed.status, 'active');
      assert.equal(listed.prefix, created.key.slice(0, 12));
      const human = leadline([...cli, 'keys', 'list']);
      assert.equal(human.status, 0);
      assert.ok(!human.stdout.includes(created.key));
    });

    test('revoke: refused from the next request on; revoking again fails', async () => {
      const created = jsonOf(leadline([...cli, 'keys', 'create', '--member', '7', '--json']));
      assert.equal(await status(made.location, created.key), 200);
      const r = leadline([...cli, 'keys', 'revoke', String(created.id), '--json']);
      assert.equal(r.status, 0, describeRun(r));
      assert.deepEqual(jsonOf(r), { id: created.id, revoked: true });
      assert.equal(await status(made.location, created.key), 401);
      const again = leadline([...cli, 'keys', 'revoke', String(created.id)]);
      assert.notEqual(again.status, 0);
      assert.match(again.stderr, /no active key/);
    });

    test('--expires: a future expiry is listed; a past one or a non-date is refused', () => {
      const ok = leadline([...cli, 'keys', 'create', '--member', '7', '--expires', '2099-01-01', '--json']);
      assert.equal(ok.status, 0, describeRun(ok));
      const id = jsonOf(ok).id;
      const listed = jsonOf(leadline([...cli, 'keys', 'list', '--json'])).keys.find(
        (k: { id: number }) => k.id === id,
      );
      assert.equal(listed.expiresAt, '2099-01-01T00:00:00.000Z');
      assert.notEqual(
        leadline([...cli, 'keys', 'create', '--member', '7', '--expires', '2001-01-01']).status,
        0,
      );
      const bad = leadline([...cli, 'keys', 'create', '--member', '7', '--expires', 'tomorrow']);
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /not an ISO date/);
    });

    test('--legacy-v1 is recorded', () => {
      const id = jsonOf(leadline([...cli, 'keys', 'create', '--member', '7', '--legacy-v1', '--json'])).id;
      const listed = jsonOf(leadline([...cli, 'keys', 'list', '--json'])).keys.find(
        (k: { id: number }) => k.id === id,
      );
      assert.equal(listed.legacyV1, true);
    });

    test('an unknown member is a one-line error and, with --json, one error document', () => {
      const r = leadline([...cli, 'keys', 'create', '--member', 'nobody@acme.test', '--json']);
      assert.notEqual(r.status, 0);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(jsonOf(r, 1).error.message, /no member/);
    });
  });
}
