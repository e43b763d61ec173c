import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import { generateKey } from '../../src/keys/token.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load, testConfig } from '../support/helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';

/**
 * Issue 21 §2 (R10): one client's failed authentications must not become every client's outage
 * when they share an address (a NAT, or a balancer that is not trusted), and a trusted balancer's
 * X-Forwarded-For names the client.
 */
const URL = '/api/pub/leads/getLastLead';
const LIMIT = 5;

for (const engine of enginesUnderTest()) {
  describe(`failed-authentication throttle [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let lookups = 0;
    let clock = Date.parse('2026-06-01T00:00:00Z');
    const now = () => clock;
    const fresh = async () => (await createKey(store, { member: M.admin, legacyV1: true }, clock)).key;

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, searchRecords());
      // Count the store's key lookups: the bound is on those.
      const find = store.keys.findByDisplay.bind(store.keys);
      store.keys.findByDisplay = (display: string) => {
        lookups++;
        return find(display);
      };
    });
    after(async () => cleanup());

    const app = (env: Record<string, string> = {}) =>
      buildApp({ config: testConfig({ LEADLINE_AUTH_FAILURE_LIMIT: String(LIMIT), ...env }), store, now });
    const get = (a: FastifyInstance, remoteAddress: string, key: string, forwardedFor?: string) =>
      a
        .inject({
          url: URL,
          remoteAddress,
          headers: {
            authorization: `Bearer ${key}`,
            ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
          },
        })
        .then((r) => r.statusCode);
    const throttle = async (a: FastifyInstance, address: string, forwardedFor?: string) => {
      for (let i = 0; i < LIMIT; i++) assert.equal(await get(a, address, generateKey(), forwardedFor), 401);
    };

    it('a key served before the address was throttled goes on being served from it', async () => {
      const a = await app();
      const good = await fresh();
      assert.equal(await get(a, '10.1.0.1', good), 200);
      await throttle(a, '10.1.0.1');
      for (let i = 0; i < 20; i++) assert.equal(await get(a, '10.1.0.1', good), 200);
      // A malformed key from there is refused without a lookup.
      const before = lookups;
      assert.equal(await get(a, '10.1.0.1', 'not-a-key'), 429);
      assert.equal(lookups, before);
      await a.close();
    });

    it('unknown keys from a throttled address reach the store at most once per 10 s', async () => {
      const a = await app();
      await throttle(a, '10.2.0.1');
      const start = lookups;
      const statuses = new Map<number, number>();
      // 120 guesses over 60 simulated seconds.
      for (let i = 0; i < 120; i++) {
        clock += 500;
        const s = await get(a, '10.2.0.1', generateKey());
        statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
      assert.ok(lookups - start <= 7, `${lookups - start} lookups`);
      assert.ok((statuses.get(429) ?? 0) >= 113, JSON.stringify([...statuses]));
      await a.close();
    });

    it('a valid key new to the instance gets in through that trickle, then stays in', async () => {
      const a = await app();
      await throttle(a, '10.3.0.1');
      clock += 10_000;
      const good = await fresh();
      assert.equal(await get(a, '10.3.0.1', good), 200);
      for (let i = 0; i < 5; i++) assert.equal(await get(a, '10.3.0.1', good), 200);
      await a.close();
    });

    it('a revoked key loses its pass', async () => {
      const a = await app();
      const created = await createKey(store, { member: M.admin, legacyV1: true }, clock);
      assert.equal(await get(a, '10.4.0.1', created.key), 200);
      await throttle(a, '10.4.0.1');
      assert.ok(await store.keys.revoke(created.id, clock));
      clock += 2_000; // past the key cache's refresh
      // Let through once on its pass (401), once on the trickle like any other key, then refused.
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await get(a, '10.4.0.1', created.key));
      assert.deepEqual(statuses, [401, 401, 429, 429]);
      await a.close();
    });

    it('LEADLINE_TRUST_PROXY: the forwarded client is throttled, not the balancer', async () => {
      const a = await app({ LEADLINE_TRUST_PROXY: '10.9.0.0/16' });
      await throttle(a, '10.9.0.5', '203.0.113.7');
      // The same client, any key: throttled.
      assert.equal(await get(a, '10.9.0.5', generateKey(), '203.0.113.7'), 401); // its one trickle lookup
      assert.equal(await get(a, '10.9.0.5', generateKey(), '203.0.113.7'), 429);
      // Another client behind the same balancer: not throttled.
      for (let i = 0; i < 3; i++) assert.equal(await get(a, '10.9.0.5', generateKey(), '198.51.100.2'), 401);
      await a.close();
    });

    it('untrusted X-Forwarded-For is ignored: a client cannot escape the throttle by inventing one', async () => {
      const a = await app();
      for (let i = 0; i < LIMIT; i++) {
        assert.equal(await get(a, '10.5.0.1', generateKey(), `192.0.2.${i}`), 401);
      }
      assert.equal(await get(a, '10.5.0.1', generateKey(), '192.0.2.200'), 401); // the trickle
      assert.equal(await get(a, '10.5.0.1', generateKey(), '192.0.2.201'), 429);
      await a.close();
    });
  });
}
