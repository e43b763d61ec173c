import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createKey } from '../src/domain/keys.js';
import type { Store } from '../src/domain/store.js';
import { enginesUnderTest, makeEngineStore } from './engines.js';
import { auth, load, testConfig } from './helpers.js';
import { M, searchRecords, TEAM } from './v2/search-fixture.js';

const DAY = 86_400_000;
const FROZEN = Date.parse('2030-02-01T00:00:00Z');
const ENV = {
  LEADLINE_V1_DEPRECATED_AT: '2030-01-01T00:00:00Z',
  LEADLINE_V1_FROZEN_AT: '2030-02-01T00:00:00Z',
};

/** What the three v1 refusals tell the client and the operator (issue 22 §2, §8). */
for (const engine of enginesUnderTest()) {
  describe(`v1 refusals: what to do instead [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fresh: { id: number; key: string };
    before(async () => {
      ({ store, cleanup } = await makeEngineStore(engine));
      await load(store, searchRecords());
      fresh = await createKey(store, { member: M.admin }, FROZEN + DAY);
    });
    after(() => cleanup());

    async function at<T>(
      now: number,
      env: Record<string, string>,
      work: (app: FastifyInstance) => Promise<T>,
    ) {
      const app = await buildApp({ config: testConfig({ ...ENV, ...env }), store, now: () => now });
      try {
        return await work(app);
      } finally {
        await app.close();
      }
    }

    it("403 frozen: the detail names the freeze and the operator's fix for this key", async () => {
      const res = await at(FROZEN + 2 * DAY, {}, (app) =>
        app.inject({ url: '/api/pub/leads/getLastLeadTeam', headers: auth(fresh.key) }),
      );
      assert.equal(res.statusCode, 403, res.body);
      const p = JSON.parse(res.body);
      assert.match(p.detail, /closed to new integrations \(2030-02-01T00:00:00\.000Z\)/);
      assert.ok(p.detail.includes(`leadline keys grant-legacy-v1 ${fresh.id}`), p.detail);
      assert.equal(p.successor.body.filters.teamId, TEAM);
    });
  });
}
