import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { createKey } from '../../src/keys/create-key.js';
import { displayPrefix } from '../../src/keys/token.js';
import { KEY_MEMORY_MS, PostgresKeyStore } from '../../src/storage/postgres/keys.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import type { Store } from '../../src/store.js';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';

/**
 * Issue 16: on PostgreSQL each instance remembers the keys it looked up, so a busy key costs
 * no round trip — and no change goes unseen because of it. A change made through leadline
 * (another instance's revocation, grant, key, an import's role change) is announced with NOTIFY
 * and seen at once; one that comes without a notification (a lost one: here, an UPDATE by hand)
 * is seen once the memory expires, after KEY_MEMORY_MS (R7's bound), on an injected clock.
 */
describe('PostgreSQL key memory', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let store: Store;
  let other: PostgresStore;
  let sql: Sql;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeEngineStore('postgres');
    ({ store, cleanup } = made);
    await load(store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'member', pid: 'p' },
    ]);
    other = PostgresStore.open(made.location.databaseUrl!); // a second instance
    sql = postgres(made.location.databaseUrl!, { max: 1, onnotice: () => {} });
  });
  after(async () => {
    await sql?.end();
    await other?.close();
    await cleanup?.();
  });

  const find = async (
    keys: {
      findByDisplay(
        d: string,
      ): Promise<{ revokedAt: number | null; role: string; legacyV1: boolean; id: number }[]>;
    },
    key: string,
  ) => (await keys.findByDisplay(displayPrefix(key)))[0];

  it('another instance’s revocation, grant and new key are seen without waiting for the memory to expire', async () => {
    const k = await createKey(store, { member: 1 });
    await (store.keys as PostgresKeyStore).listen();
    assert.equal((await find(store.keys, k.key))?.legacyV1, false);
    assert.ok(await other.keys.setLegacyV1(k.id, true));
    await eventually(
      async () => assert.equal((await find(store.keys, k.key))?.legacyV1, true),
      KEY_MEMORY_MS / 2,
    );
    assert.ok(await other.keys.revoke(k.id, 123));
    await eventually(
      async () => assert.equal((await find(store.keys, k.key))?.revokedAt, 123),
      KEY_MEMORY_MS / 2,
    );
    assert.equal(await find(store.keys, 'llk_unknown1234'), undefined);
    const fresh = await createKey(other, { member: 1 });
    await eventually(
      async () => assert.equal((await find(store.keys, fresh.key))?.id, fresh.id),
      KEY_MEMORY_MS / 2,
    );
  });

  it('an import’s role change is announced too', async () => {
    const k = await createKey(store, { member: 1 });
    await (store.keys as PostgresKeyStore).listen();
    assert.equal((await find(store.keys, k.key))?.role, 'member');
    await load(other, [{ type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: 'p' }]);
    await eventually(
      async () => assert.equal((await find(store.keys, k.key))?.role, 'admin'),
      KEY_MEMORY_MS / 2,
    );
    await load(other, [{ type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'member', pid: 'p' }]);
    await eventually(
      async () => assert.equal((await find(store.keys, k.key))?.role, 'member'),
      KEY_MEMORY_MS / 2,
    );
  });

  it('without a notification, a change is seen once the memory expires, and not before', async () => {
    let clock = 1_000_000;
    const keys = new PostgresKeyStore(sql, () => clock);
    const k = await createKey(store, { member: 1 }); // announced before this one subscribes
    await keys.listen(); // subscribed before the look-ups: its connection callback forgets, not a change
    assert.equal((await find(keys, k.key))?.revokedAt, null);
    await sql`UPDATE api_keys SET revoked_at = 456 WHERE id = ${k.id}`; // by hand: no NOTIFY, as if lost
    clock += KEY_MEMORY_MS - 1;
    assert.equal((await find(keys, k.key))?.revokedAt, null, 'remembered: no round trip');
    clock += 1;
    // (This bare connection reads BIGINT as text, unlike the store's pool.)
    assert.equal(Number((await find(keys, k.key))?.revokedAt), 456, 'expired: read again');
    await sql`UPDATE api_keys SET revoked_at = NULL WHERE id = ${k.id}`;
    keys.forget();
    assert.equal((await find(keys, k.key))?.revokedAt, null, 'forget() drops it at once');
    await keys.close();
  });

  it('look-ups that find the memory expired together share one query, but none begun before a change answers after it', async () => {
    let clock = 2_000_000;
    const keys = new PostgresKeyStore(sql, () => clock);
    const k = await createKey(store, { member: 1 });
    await keys.listen();
    const display = displayPrefix(k.key);
    const together = await Promise.all(Array.from({ length: 50 }, () => keys.findByDisplay(display)));
    // One query's answer, handed to all fifty (each its own query would be its own array).
    assert.ok(together.every((answer) => answer === together[0]));
    clock += KEY_MEMORY_MS;
    const under = keys.findByDisplay(display); // a look-up under way...
    await sql`UPDATE api_keys SET revoked_at = 789 WHERE id = ${k.id}`;
    keys.forget(); // ...when a change is announced
    const after = await keys.findByDisplay(display);
    assert.equal(Number(after[0]?.revokedAt), 789, 'asked after the change: a query of its own');
    assert.notEqual(await under, after);
    await keys.close();
  });
});
