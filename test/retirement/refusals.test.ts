import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, testConfig } from '../support/helpers.js';
import { M, searchRecords, TEAM } from '../v2/search-fixture.js';

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

    /** The one successor shape: the v2 request, ready to send, that replaces this call. */
    const teamSuccessor = {
      method: 'POST',
      path: '/api/pub/v2/leads/search',
      body: { filters: { teamId: TEAM }, sort: { field: 'timestamp', direction: 'DESC' }, limit: 1 },
    };

    it('403 frozen, 410 brownout and 410 sunset carry the same successor for the same call', async () => {
      const legacy = await createKey(store, { member: M.admin, legacyV1: true }, FROZEN + DAY);
      const url = '/api/pub/leads/getLastLeadTeam';
      const frozen = await at(FROZEN + 2 * DAY, {}, (app) => app.inject({ url, headers: auth(fresh.key) }));
      assert.deepEqual(JSON.parse(frozen.body).successor, teamSuccessor);
      const b = await store.retirement.addBrownout({
        startsAt: FROZEN + 2 * DAY - 1000,
        endsAt: FROZEN + 2 * DAY + 90_500,
        keyIds: [legacy.id],
        createdAt: FROZEN,
      });
      try {
        const brownout = await at(FROZEN + 2 * DAY, {}, (app) =>
          app.inject({ url, headers: auth(legacy.key) }),
        );
        assert.equal(brownout.statusCode, 410);
        const p = JSON.parse(brownout.body);
        assert.deepEqual(p.successor, teamSuccessor);
        assert.equal(p.brownoutEndsAt, new Date(FROZEN + 2 * DAY + 90_500).toISOString());
        // Seconds to the window's end, rounded up: 90.5 s is 91.
        assert.equal(brownout.headers['retry-after'], '91');
        assert.equal(brownout.headers['cache-control'], 'no-store');
      } finally {
        await store.retirement.removeBrownout(b.id);
      }
      const sunsetEnv = { LEADLINE_V1_SUNSET_AT: '2030-03-01T00:00:00Z' };
      const afterSunset = FROZEN + 60 * DAY;
      const sunset = await at(afterSunset, sunsetEnv, (app) =>
        app.inject({ url, headers: auth(legacy.key) }),
      );
      assert.equal(sunset.statusCode, 410);
      assert.deepEqual(JSON.parse(sunset.body).successor, teamSuccessor);
      assert.equal(sunset.headers['retry-after'], undefined, 'a sunset is for good: no Retry-After');
    });

    it('sunset: a range call keeps its range; no key or no operation leaves the body to the client', async () => {
      const env = { LEADLINE_V1_SUNSET_AT: '2030-03-01T00:00:00Z' };
      const now = FROZEN + 60 * DAY;
      const range = await at(now, env, (app) =>
        app.inject({
          url: '/api/pub/leads/getLeadsTimeRangeForTeam?start=0&end=1700000000000',
          headers: auth(fresh.key),
        }),
      );
      assert.deepEqual(JSON.parse(range.body).successor, {
        method: 'POST',
        path: '/api/pub/v2/leads/search',
        body: {
          filters: {
            teamId: TEAM,
            startTime: '1970-01-01T00:00:00.000Z',
            endTime: '2023-11-14T22:13:20.000Z',
          },
          sort: { field: 'timestamp', direction: 'ASC' },
          limit: 1000,
        },
      });
      for (const res of [
        await at(now, env, (app) => app.inject({ url: '/api/pub/leads/getLastLead' })),
        await at(now, env, (app) =>
          app.inject({ url: '/api/pub/leads/noSuchOperation', headers: auth(fresh.key) }),
        ),
      ]) {
        assert.equal(res.statusCode, 410);
        assert.deepEqual(JSON.parse(res.body).successor, {
          method: 'POST',
          path: '/api/pub/v2/leads/search',
          body: null,
        });
      }
    });
  });
}
