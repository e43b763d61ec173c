import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import type { V2DeprecationsBody } from '../../src/schemas/v2-deprecations.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, testConfig } from '../support/helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';

const DAY = 86_400_000;
const FROZEN = Date.parse('2030-02-01T00:00:00Z');
const SUNSET = Date.parse('2030-06-01T00:00:00Z');
const ENV = {
  LEADLINE_V1_DEPRECATED_AT: '2030-01-01T00:00:00Z',
  LEADLINE_V1_FROZEN_AT: '2030-02-01T00:00:00Z',
  LEADLINE_V1_SUNSET_AT: '2030-06-01T00:00:00Z',
};
/** The scenario's first day: after the freeze, before the sunset. */
const T = Date.parse('2030-03-10T09:00:00Z');
const ME = '/api/pub/v2/me/deprecations';
type Entry = V2DeprecationsBody['data']['keys'][number];

/**
 * Issue 42's scenario: a legacy key calls two v1 operations, a brownout is scheduled for it in
 * 10 days, a sunset is set. `/me/deprecations` names exactly those operations with their counts,
 * first and last call and agent, the brownouts ahead and the sunset — from a fresh app on the
 * same store (the ledger survives the restart); a key that never called v1 gets an empty list; a
 * member's key sees its own entry only. v1's answers announce the brownout (`Warning`) once it
 * is within the notice (14 days), and not before.
 */
for (const engine of enginesUnderTest()) {
  describe(`the caller's own deprecated calls [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let clock = T;
    const key = { legacy: '', member: '', admin: '' };
    const id = { legacy: 0, member: 0, admin: 0 };
    const soon = { startsAt: T + 10 * DAY, endsAt: T + 10 * DAY + 3_600_000 };
    const later = { startsAt: T + 20 * DAY, endsAt: T + 20 * DAY + 3_600_000 };

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, searchRecords());
      const legacy = await createKey(store, { member: M.mia }, FROZEN - DAY);
      const member = await createKey(store, { member: M.max }, FROZEN - DAY);
      const admin = await createKey(store, { member: M.admin }, FROZEN + DAY);
      Object.assign(key, { legacy: legacy.key, member: member.key, admin: admin.key });
      Object.assign(id, { legacy: legacy.id, member: member.id, admin: admin.id });
      await store.retirement.addBrownout({ ...later, keyIds: [id.legacy], createdAt: T - DAY });
    });
    after(async () => cleanup());

    /** A fresh app whose clock reads `clock`; closing it flushes the usage ledger. */
    async function withApp(work: (app: FastifyInstance) => Promise<void>): Promise<void> {
      const app = await buildApp({ config: testConfig(ENV), store, now: () => clock });
      try {
        await work(app);
      } finally {
        await app.close();
      }
    }
    const v1 = (app: FastifyInstance, path: string, agent: string) =>
      app.inject({ url: `/api/pub/leads/${path}`, headers: { ...auth(key.legacy), 'user-agent': agent } });
    async function deprecations(app: FastifyInstance, k: string, query = ''): Promise<Entry[]> {
      const res = await app.inject({ url: `${ME}${query}`, headers: auth(k) });
      assert.equal(res.statusCode, 200, res.body);
      const body = JSON.parse(res.body) as V2DeprecationsBody;
      assert.equal(body.data.sunsetAt, new Date(SUNSET).toISOString());
      assert.equal(body.data.migrationGuide, 'http://127.0.0.1:3000/docs/v1-migration');
      return body.data.keys;
    }

    it('a brownout beyond the notice is not announced; within it, every v1 answer says when', async () => {
      await withApp(async (app) => {
        const far = await v1(app, 'getLastLead', 'crm/1');
        assert.equal(far.statusCode, 200, far.body);
        assert.equal(far.headers.warning, undefined, 'the only window is 20 days ahead');
      });
      await store.retirement.addBrownout({ ...soon, keyIds: [id.legacy], createdAt: T });
      await withApp(async (app) => {
        for (const [i, path] of ['getLastLead', 'getLeadsTimeRange?start=0', 'getLastLead'].entries()) {
          clock = T + (i + 1) * 1000;
          const res = await v1(app, path, i === 2 ? 'crm/2' : 'crm/1');
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(
            res.headers.warning,
            `299 - "v1-brownout-scheduled ${new Date(soon.startsAt).toISOString()}/${new Date(soon.endsAt).toISOString()}: v1 answers 410 to this key in this window; move to the v2 request in the migration guide"`,
          );
        }
        clock = T + 4000;
        const other = await app.inject({ url: '/api/pub/leads/getLastLead', headers: auth(key.member) });
        assert.equal(other.statusCode, 200);
        assert.equal(other.headers.warning, undefined, 'the brownout is aimed at the legacy key alone');
      });
    });

    it('after a restart, the key sees exactly its calls, its brownouts and the sunset', async () => {
      clock = T + 60_000;
      await withApp(async (app) => {
        const [mine, ...rest] = await deprecations(app, key.legacy);
        assert.equal(rest.length, 0, 'scope=key: the presented key alone');
        assert.equal(mine!.keyId, id.legacy);
        assert.equal(mine!.v1, 'served');
        assert.deepEqual(
          mine!.brownouts,
          [soon, later].map((w) => ({
            startsAt: new Date(w.startsAt).toISOString(),
            endsAt: new Date(w.endsAt).toISOString(),
          })),
        );
        const calls = new Map(mine!.calls.map((c) => [c.operation, c]));
        assert.deepEqual([...calls.keys()], ['getLastLead', 'getLeadsTimeRange']);
        const last = calls.get('getLastLead')!;
        assert.equal(last.count, 3);
        assert.deepEqual(last.statuses, { '200': 3 });
        assert.equal(last.firstCall, new Date(T).toISOString());
        assert.equal(last.lastCall, new Date(T + 3000).toISOString());
        assert.equal(last.userAgent, 'crm/2');
        assert.deepEqual(last.successor, {
          method: 'POST',
          path: '/api/pub/v2/leads/search',
          body: {
            filters: { assignedMemberIds: [M.mia] },
            sort: { field: 'timestamp', direction: 'DESC' },
            limit: 1,
          },
        });
        const range = calls.get('getLeadsTimeRange')!;
        assert.equal(range.count, 1);
        assert.equal(range.firstCall, new Date(T + 2000).toISOString());
      });
    });

    it('a key that never called v1 gets an empty list; a member sees no other key', async () => {
      await withApp(async (app) => {
        const [admin] = await deprecations(app, key.admin);
        assert.deepEqual(admin!.calls, []);
        assert.equal(admin!.v1, 'frozen-out', 'made after the freeze without a grant');
        const [member, ...none] = await deprecations(app, key.member);
        assert.equal(none.length, 0);
        assert.equal(member!.keyId, id.member);
        assert.deepEqual(
          member!.calls.map((c) => [c.operation, c.count]),
          [['getLastLead', 1]],
          'its own call only',
        );
        assert.deepEqual(member!.brownouts, [], 'the brownouts aim at another key');
        const refused = await app.inject({ url: `${ME}?scope=team`, headers: auth(key.member) });
        assert.equal(refused.statusCode, 403, refused.body);
        const team = await deprecations(app, key.admin, '?scope=team');
        assert.deepEqual(
          team.map((k) => k.keyId).sort((a, b) => a - b),
          [id.legacy, id.member, id.admin].sort((a, b) => a - b),
        );
        assert.equal(team.find((k) => k.keyId === id.legacy)!.calls.length, 2);
      });
    });

    it('the window counts whole UTC days back from today; bad parameters are a 400', async () => {
      clock = T + 2 * DAY;
      await withApp(async (app) => {
        const [recent] = await deprecations(app, key.legacy, '?days=2');
        assert.deepEqual(recent!.calls, [], 'the calls were three days ago, counting today');
        const [wider] = await deprecations(app, key.legacy, '?days=3');
        assert.equal(wider!.calls.length, 2);
        for (const q of ['?days=0', '?days=367', '?days=1.5', '?scope=all', '?days=2&days=3']) {
          const res = await app.inject({ url: `${ME}${q}`, headers: auth(key.legacy) });
          assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
        }
      });
    });

    it('after the sunset, the key stands at sunset and no brownout is ahead of it', async () => {
      clock = SUNSET + DAY;
      await withApp(async (app) => {
        const [mine] = await deprecations(app, key.legacy, '?days=366');
        assert.equal(mine!.v1, 'sunset');
        assert.deepEqual(mine!.brownouts, []);
        assert.equal(mine!.calls.length, 2, 'what it called is still shown within the window');
      });
    });
  });
}
