import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import type { Store } from '../../src/store.js';
import type { EngineStore } from '../support/engines.js';
import { enginesUnderTest } from '../support/engines.js';
import { auth, testConfig } from '../support/helpers.js';
import { form, type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 42 §4 through the real app (docs/console.md "API health"): a team admin opens a key of
 * their team and sees its v1 calls by operation (the chart's numbers), the brownout that will hit
 * it next, the v2 request to paste for each operation, and makes a v2 key for the same member
 * with one button; another team's key is not found.
 */
const A = 4261;
const B = 4262;
const ADMIN_A = 42611;
const REP_A = 42612;
const ADMIN_B = 42621;
const DAY = 86_400_000;

for (const engine of enginesUnderTest()) {
  describe(`console API health [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    const clock = Date.now();
    let a: Signed;
    let b: Signed;
    let rep = { id: 0, key: '' };
    const window = { startsAt: clock + 5 * DAY, endsAt: clock + 5 * DAY + 3_600_000 };
    const get = (url: string, s: Signed) => app.inject({ url, headers: { cookie: s.cookie } });

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'admin@a.test', role: 'admin', pid: 'p-a' },
          { type: 'member', id: REP_A, teamId: A, email: 'rep@a.test', role: 'member', pid: 'p-r' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'admin@b.test', role: 'admin', pid: 'p-b' },
        ],
      );
      store = made.store;
      const k = await createKey(store, { member: REP_A, label: 'old crm', legacyV1: true }, clock - DAY);
      rep = { id: k.id, key: k.key };
      await store.retirement.addBrownout({ ...window, keyIds: [rep.id], createdAt: clock });
      app = await buildApp({ config: testConfig(), store, now: () => clock });
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ url: '/api/pub/leads/getLastLead', headers: auth(rep.key) });
        assert.equal(res.statusCode, 200, res.body);
      }
      await app.close(); // writes the usage ledger
      app = await buildApp({ config: testConfig(), store, now: () => clock });
      a = await signIn(app, store, ADMIN_A, clock);
      b = await signIn(app, store, ADMIN_B, clock);
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test("a team admin sees the key's v1 calls, its next brownout and what to call instead", async () => {
      const keys = await get('/console/keys', a);
      assert.match(keys.body, new RegExp(`href="/console/keys/${rep.id}/health"`));
      const res = await get(`/console/keys/${rep.id}/health`, a);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /<code>getLastLead<\/code>: 3 calls/);
      assert.match(res.body, /Next brownout for this key/);
      assert.match(res.body, /id="chart-data"/);
      assert.match(
        res.body,
        /\{&quot;filters&quot;:\{&quot;assignedMemberIds&quot;:\[42612\]\},&quot;sort&quot;:\{&quot;field&quot;:&quot;timestamp&quot;,&quot;direction&quot;:&quot;DESC&quot;\},&quot;limit&quot;:1\}/,
        'the successor body, escaped in the page',
      );
    });

    test('one button makes a v2 key for the same member', async () => {
      const before = (await store.keys.list(REP_A)).length;
      const res = await form(app, a, `/console/keys?team=${A}`, {
        _csrf: a.csrf,
        member: String(REP_A),
        label: 'v2 for old crm',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /Key created for rep@a\.test/);
      const after = await store.keys.list(REP_A);
      assert.equal(after.length, before + 1);
      assert.ok(after.some((k) => k.label === 'v2 for old crm' && !k.legacyV1));
      const page = await get(`/console/keys/${rep.id}/health`, a);
      assert.match(page.body, /name="label" value="v2 for old crm"/, 'the form the button sends');
    });

    test("another team's admin finds no such key; a key without v1 calls says so", async () => {
      const other = await get(`/console/keys/${rep.id}/health`, b);
      assert.equal(other.statusCode, 404);
      const own = await createKey(store, { member: ADMIN_B }, clock);
      const quiet = await get(`/console/keys/${own.id}/health`, b);
      assert.equal(quiet.statusCode, 200, quiet.body);
      assert.match(quiet.body, /made no v1 call in the last 30 days/);
      assert.match(quiet.body, /No brownout is scheduled for it/);
    });
  });
}
