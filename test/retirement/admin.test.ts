import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../src/keys/create-key.js';
import type { V1Report } from '../../src/retirement/report.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, makeApp } from '../support/helpers.js';
import { assertV2Problem } from '../v2/client.js';
import { M, searchRecords } from '../v2/search-fixture.js';

for (const engine of enginesUnderTest()) {
  describe(`admin report API and page [${engine}]`, () => {
    let app: FastifyInstance;
    let cleanup: () => Promise<void>;
    const key = { admin: '', member: '', outsider: '' };
    const ids = { admin: 0, member: 0, outsider: 0 };
    before(async () => {
      const made = await makeEngineStore(engine);
      cleanup = made.cleanup;
      await load(made.store, searchRecords());
      for (const [name, member] of [
        ['admin', M.admin],
        ['member', M.mia],
        ['outsider', M.outsider],
      ] as const) {
        const k = await createKey(made.store, { member, legacyV1: true });
        key[name] = k.key;
        ids[name] = k.id;
      }
      app = await makeApp(made.store);
      // Some usage to report: the member calls v1 twice, then the app closes and writes it.
      for (let i = 0; i < 2; i++) {
        const res = await app.inject({
          url: '/api/pub/leads/getLastLead',
          headers: { ...auth(key.member), 'user-agent': 'zap/1' },
        });
        assert.equal(res.statusCode, 200);
      }
      await app.close();
      app = await makeApp(made.store);
    });
    after(async () => {
      await app.close();
      await cleanup();
    });

    it("gives a team admin the report of their team's keys, with v1 calls per day", async () => {
      const res = await app.inject({ url: '/api/admin/v1/report?days=7', headers: auth(key.admin) });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = JSON.parse(res.body) as V1Report & { v1CallsByDay: { day: string; calls: number }[] };
      assert.equal(body.windowDays, 7);
      assert.deepEqual(
        body.keys.map((k) => k.keyId),
        [ids.admin, ids.member],
        'only this team’s keys',
      );
      const member = body.keys.find((k) => k.keyId === ids.member);
      assert.equal(member?.status, 'on-v1');
      assert.equal(member?.v1ByOperation.getLastLead, 2);
      assert.equal(member?.userAgent, 'zap/1');
      assert.equal(body.v1CallsByDay.length, 7);
      assert.equal(body.v1CallsByDay.at(-1)?.calls, 2);
    });

    it('refuses members (403), other teams see only theirs, bad days is a 400', async () => {
      assertV2Problem(
        await app.inject({ url: '/api/admin/v1/report', headers: auth(key.member) }),
        403,
        'forbidden',
      );
      assertV2Problem(await app.inject({ url: '/api/admin/v1/report' }), 401, 'unauthorized');
      const other = await app.inject({ url: '/api/admin/v1/report', headers: auth(key.outsider) });
      assert.deepEqual(
        (JSON.parse(other.body) as V1Report).keys.map((k) => k.keyId),
        [ids.outsider],
      );
      for (const days of ['0', 'x', '3661']) {
        const res = await app.inject({ url: `/api/admin/v1/report?days=${days}`, headers: auth(key.admin) });
        assertV2Problem(res, 400, 'invalid-parameters');
      }
    });

    it('/admin takes no key any more: it sends people to the console (issue 15)', async () => {
      const res = await app.inject({ url: '/admin' });
      assert.equal(res.statusCode, 301);
      assert.equal(res.headers.location, '/console/v1');
      assert.equal((await app.inject({ url: '/assets/admin.js' })).statusCode, 404);
    });
  });
}
