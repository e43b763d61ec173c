import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLeadline } from '../../packages/client/src/index.js';
import { brownoutOf, createLeadlineV1, type V1Warning } from '../../packages/client/src/v1.js';
import { createKey } from '../../src/keys/create-key.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load, makeApp } from '../support/helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';

const DAY = 86_400_000;

/**
 * Issue 42 §2 in the typed client: a v1 answer's `Warning` is read by `brownoutOf`; the v1 shim
 * hands the key's brownout ahead and its v1 calls to `onWarning` — once, beside its first call —
 * and `deprecations()` reads `GET /api/pub/v2/me/deprecations`. Against a listening server.
 */
for (const engine of enginesUnderTest()) {
  describe(`the client's deprecation warnings [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let app: FastifyInstance;
    let baseUrl: string;
    let apiKey: string;
    const window = { startsAt: Date.now() + 3 * DAY, endsAt: Date.now() + 3 * DAY + 600_000 };
    const iso = (ms: number) => new Date(ms).toISOString();

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, searchRecords());
      const legacy = await createKey(store, { member: M.mia, legacyV1: true });
      apiKey = legacy.key;
      await store.retirement.addBrownout({ ...window, keyIds: [legacy.id], createdAt: Date.now() });
      app = await makeApp(store, { LEADLINE_USAGE_FLUSH_MS: '100' });
      await app.listen({ host: '127.0.0.1', port: 0 });
      baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await app.close();
      await cleanup();
    });

    test('a v1 answer announces the brownout; brownoutOf reads it', async () => {
      const res = await fetch(`${baseUrl}/api/pub/leads/getLastLead`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(brownoutOf(res.headers.get('warning')), {
        startsAt: iso(window.startsAt),
        endsAt: iso(window.endsAt),
      });
      assert.equal(brownoutOf(null), null);
      assert.equal(brownoutOf('299 - "something else"'), null);
    });

    test('the shim tells onWarning of the brownout and of the v1 calls, once', async () => {
      const client = createLeadline({ baseUrl, apiKey });
      // The v1 call above reaches the ledger within its flush interval.
      await eventually(async () => {
        const d = await client.deprecations();
        assert.equal(d.keys[0]?.calls[0]?.operation, 'getLastLead');
      });
      const warnings: V1Warning[] = [];
      const v1 = createLeadlineV1({ baseUrl, apiKey, onWarning: (w) => warnings.push(w) });
      await v1.getLastLead();
      await v1.getLeadsTimeRange(0);
      await eventually(async () => assert.equal(warnings.length, 2));
      const [brownout, calls] = warnings;
      assert.equal(brownout?.kind, 'brownout-scheduled');
      assert.equal(brownout.kind === 'brownout-scheduled' && brownout.startsAt, iso(window.startsAt));
      assert.equal(calls?.kind, 'v1-still-called');
      assert.deepEqual(
        calls.kind === 'v1-still-called' && calls.operations.map((o) => [o.operation, o.count]),
        [['getLastLead', 1]],
      );
      await v1.getLastLeadTeam().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(warnings.length, 2, 'told once, not on every call');
    });
  });
}
