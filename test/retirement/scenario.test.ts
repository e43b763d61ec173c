import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import type { ReportKey, V1Report } from '../../src/retirement/report.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, testConfig } from '../support/helpers.js';
import { links } from '../v1/http-assert.js';
import { M, searchRecords, TEAM } from '../v2/search-fixture.js';

const DAY = 86_400_000;
const DEPRECATED = Date.parse('2030-01-01T00:00:00Z');
const FROZEN = Date.parse('2030-02-01T00:00:00Z');
const SUNSET = Date.parse('2030-06-01T00:00:00Z');
const ENV = {
  LEADLINE_V1_DEPRECATED_AT: '2030-01-01T00:00:00Z',
  LEADLINE_V1_FROZEN_AT: '2030-02-01T00:00:00Z',
  LEADLINE_V1_SUNSET_AT: '2030-06-01T00:00:00Z',
};
const V1 = '/api/pub/leads/getLastLead';
const SEARCH = '/api/pub/v2/leads/search';

/**
 * Issue 5 §7: four integrations — legacy (keeps using v1), migrated (moves to v2), new (made
 * after the freeze) and v2-only — through deprecation → freeze → a brownout aimed at one key →
 * sunset, with the headers, statuses, problem types and the report at each step. Each step is
 * a fresh app on the same store: the ledger has to survive restarts too.
 */
for (const engine of enginesUnderTest()) {
  describe(`v1 retirement scenario [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let clock = 0;
    const key = { legacy: '', migrated: '', fresh: '', v2only: '', admin: '' };
    const id = { legacy: 0, migrated: 0, fresh: 0, v2only: 0, unused: 0 };

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, searchRecords());
      const make = async (member: number, at: number) => createKey(store, { member }, at);
      const legacy = await make(M.mia, DEPRECATED - 30 * DAY);
      const migrated = await make(M.max, DEPRECATED - 30 * DAY);
      const fresh = await make(M.subAdmin, FROZEN + DAY);
      const v2only = await make(M.admin, FROZEN + DAY);
      const unused = await make(M.admin, FROZEN + DAY);
      const admin = await make(M.admin, FROZEN + DAY);
      Object.assign(key, {
        legacy: legacy.key,
        migrated: migrated.key,
        fresh: fresh.key,
        v2only: v2only.key,
        admin: admin.key,
      });
      Object.assign(id, {
        legacy: legacy.id,
        migrated: migrated.id,
        fresh: fresh.id,
        v2only: v2only.id,
        unused: unused.id,
      });
    });
    after(async () => cleanup());

    /** Runs `work` against an app whose clock reads `at`; closing it flushes the usage ledger. */
    async function step(at: number, work: (app: FastifyInstance) => Promise<void>): Promise<void> {
      clock = at;
      const app = await buildApp({ config: testConfig(ENV), store, now: () => clock });
      try {
        await work(app);
      } finally {
        await app.close();
      }
    }
    const v1 = (app: FastifyInstance, k?: string) =>
      app.inject({
        url: V1,
        headers: { 'user-agent': 'legacy-crm/3.1', ...(k === undefined ? {} : auth(k)) },
      });
    const v2 = (app: FastifyInstance, k: string) =>
      app.inject({
        method: 'POST',
        url: SEARCH,
        headers: { ...auth(k), 'content-type': 'application/json' },
        payload: JSON.stringify({ filters: { teamId: TEAM }, limit: 1 }),
      });
    const mine = (app: FastifyInstance, k: string) =>
      app.inject({
        method: 'POST',
        url: SEARCH,
        headers: { ...auth(k), 'content-type': 'application/json' },
        payload: JSON.stringify({ filters: { assignedMemberIds: [M.max] }, limit: 1 }),
      });

    function assertSignals(res: LightMyRequestResponse): void {
      assert.equal(res.headers.deprecation, `@${DEPRECATED / 1000}`);
      assert.equal(res.headers.sunset, new Date(SUNSET).toUTCString());
      const rels = links(res);
      for (const rel of ['deprecation', 'successor-version', 'sunset']) assert.ok(rels.has(rel), rel);
    }
    function assertRefusal(
      res: LightMyRequestResponse,
      status: number,
      code: string,
    ): Record<string, unknown> {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assertSignals(res);
      const p = JSON.parse(res.body) as Record<string, unknown>;
      assert.equal(p.type, `http://127.0.0.1:3000/problems/${code}`);
      assert.equal(p.status, status);
      return p;
    }
    async function report(app: FastifyInstance, days: number): Promise<Map<number, ReportKey>> {
      const res = await app.inject({ url: `/api/admin/v1/report?days=${days}`, headers: auth(key.admin) });
      assert.equal(res.statusCode, 200, res.body);
      const body = JSON.parse(res.body) as V1Report;
      assert.equal(body.windowDays, days);
      return new Map(body.keys.map((k) => [k.keyId, k]));
    }

    it('deprecation: v1 answers, with Deprecation, Sunset and Link on every answer', async () => {
      await step(DEPRECATED + DAY, async (app) => {
        for (const k of [key.legacy, key.migrated]) {
          const res = await v1(app, k);
          assert.equal(res.statusCode, 200, res.body);
          assertSignals(res);
        }
        assertSignals(await v1(app));
      });
      await step(DEPRECATED + DAY, async (app) => {
        const r = await report(app, 7);
        assert.equal(r.get(id.legacy)?.status, 'on-v1');
        assert.equal(r.get(id.legacy)?.userAgent, 'legacy-crm/3.1');
        assert.equal(r.get(id.migrated)?.v1ByOperation.getLastLead, 1);
        assert.equal(r.get(id.v2only)?.status, 'unused');
      });
    });

    it('freeze: a key made after it is refused with the v2 request to use; legacy grants open v1', async () => {
      await step(FROZEN + 2 * DAY, async (app) => {
        assert.equal((await v1(app, key.legacy)).statusCode, 200);
        const p = assertRefusal(await v1(app, key.fresh), 403, 'v1-closed-to-new-integrations');
        assert.deepEqual(p.successor, {
          method: 'POST',
          path: '/api/pub/v2/leads/search',
          body: {
            filters: { assignedMemberIds: [M.subAdmin] },
            sort: { field: 'timestamp', direction: 'DESC' },
            limit: 1,
          },
        });
        assert.equal((await v2(app, key.v2only)).statusCode, 200);
        assert.equal((await mine(app, key.migrated)).statusCode, 200);
        // A grant takes effect on the next request; taking it back too.
        assert.ok(await store.keys.setLegacyV1(id.fresh, true));
        assert.equal((await v1(app, key.fresh)).statusCode, 200);
        assert.ok(await store.keys.setLegacyV1(id.fresh, false));
        assertRefusal(await v1(app, key.fresh), 403, 'v1-closed-to-new-integrations');
      });
      await step(FROZEN + 2 * DAY, async (app) => {
        const r = await report(app, 7);
        assert.equal(r.get(id.legacy)?.status, 'on-v1');
        assert.equal(r.get(id.migrated)?.status, 'migrated');
        assert.equal(r.get(id.migrated)?.v2Calls, 1);
        assert.equal(r.get(id.fresh)?.status, 'on-v1', 'refused calls count: the new key still tries');
        assert.equal(r.get(id.fresh)?.v1Calls, 3);
        assert.equal(r.get(id.v2only)?.status, 'v2-only');
        assert.equal(r.get(id.unused)?.status, 'unused');
      });
    });

    it('a brownout aimed at one key: 410 no-store until its end, others unaffected', async () => {
      const t = FROZEN + 10 * DAY;
      const b = await store.retirement.addBrownout({
        startsAt: t - 3600_000,
        endsAt: t + 3600_000,
        keyIds: [id.legacy],
        createdAt: t,
      });
      await step(t, async (app) => {
        const res = await v1(app, key.legacy);
        const p = assertRefusal(res, 410, 'v1-brownout');
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(p.brownoutEndsAt, new Date(t + 3600_000).toISOString());
        assert.equal(p.migrationGuide, 'http://127.0.0.1:3000/docs/v1-migration');
        assertRefusal(await v1(app, key.fresh), 403, 'v1-closed-to-new-integrations');
        assert.equal((await v1(app, key.migrated)).statusCode, 200, 'not aimed at it');
      });
      await step(t + 3600_000, async (app) => {
        assert.equal((await v1(app, key.legacy)).statusCode, 200, 'the window ended');
      });
      assert.ok(await store.retirement.removeBrownout(b.id));
    });

    it('sunset: every v1 call is 410 v1-sunset naming the successor; v2 goes on', async () => {
      await step(SUNSET + DAY, async (app) => {
        for (const k of [key.legacy, key.migrated, key.fresh, undefined]) {
          const p = assertRefusal(await v1(app, k), 410, 'v1-sunset');
          assert.equal((p.successor as { path: string }).path, '/api/pub/v2/leads/search');
        }
        assertRefusal(await app.inject({ url: '/api/pub/leads/noSuchOperation' }), 410, 'v1-sunset');
        assertRefusal(
          await app.inject({ method: 'POST', url: V1, headers: auth(key.legacy) }),
          410,
          'v1-sunset',
        );
        assert.equal((await v2(app, key.v2only)).statusCode, 200);
      });
      await step(SUNSET + DAY, async (app) => {
        const r = await report(app, 7);
        // Still tries after the sunset, but every call in the window was refused (issue 22 §8).
        assert.equal(r.get(id.legacy)?.status, 'refused');
        assert.equal(r.get(id.legacy)?.v1Calls, 2);
        assert.equal(r.get(id.legacy)?.v1Refused, 2);
        assert.equal(r.get(id.v2only)?.status, 'v2-only');
        const month = await report(app, 200);
        assert.equal(
          month.get(id.legacy)?.v1Calls,
          6,
          'every v1 call of the legacy key, refused ones included',
        );
      });
    });
  });
}
