import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKey } from '../../src/keys/create-key.js';
import { displayPrefix } from '../../src/keys/token.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { load, makeStore } from '../support/helpers.js';

/** The SQLite key look-up is remembered between requests; no write may go unseen because of it. */
describe('SQLite key cache', () => {
  let store: Store;
  let other: SqliteStore;
  let path: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeStore();
    ({ store, path, cleanup } = made);
    await load(store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'member', pid: 'p' },
    ]);
    // A second connection to the same file: another process, as far as SQLite knows.
    other = SqliteStore.open(path);
  });
  after(async () => {
    await other.close();
    await cleanup();
  });

  const find = async (key: string) => (await store.keys.findByDisplay(displayPrefix(key)))[0];

  it('sees a revocation and a grant made by another connection on the next look-up', async () => {
    const k = await createKey(store, { member: 1 });
    assert.equal((await find(k.key))?.revokedAt, null);
    assert.equal((await find(k.key))?.legacyV1, false, 'second look-up (cached)');
    assert.ok(await other.keys.setLegacyV1(k.id, true));
    assert.equal((await find(k.key))?.legacyV1, true);
    assert.ok(await other.keys.revoke(k.id, 123));
    assert.equal((await find(k.key))?.revokedAt, 123);
  });

  it('sees a key created, and a role changed, through its own connection', async () => {
    const k = await createKey(store, { member: 1 });
    assert.equal((await find(k.key))?.role, 'member');
    await load(store, [{ type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: 'p' }]);
    assert.equal((await find(k.key))?.role, 'admin');
    assert.deepEqual(await store.keys.findByDisplay('llk_zzzzzzzz'), [], 'an unknown prefix, remembered too');
    const fresh = await createKey(other, { member: 1 });
    assert.equal((await find(fresh.key))?.id, fresh.id, 'a key made elsewhere is found at once');
  });
});
