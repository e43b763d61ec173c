import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { testConfig } from '../support/helpers.js';
import { form, type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 40 §6 in the console (docs/console.md "Privacy"): a team admin sees and sets their own
 * team's retention policy, never another team's (404, unchanged); a change without the CSRF
 * token or with bad days is refused and changes nothing; the operator lists every team's
 * policy and sets any team's; "Turn off" removes it.
 */
const A = 4061;
const B = 4062;
const ADMIN_A = 40611;
const ADMIN_B = 40621;

for (const engine of enginesUnderTest()) {
  describe(`console privacy: retention [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let a: Signed;
    let b: Signed;
    let op: Signed;
    const now = Date.now();
    const daysOf = async (team: number) => (await store.retention.policy(team))?.days ?? null;
    const get = (url: string, s: Signed) => app.inject({ url, headers: { cookie: s.cookie } });

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'a@p.test', pid: 'pa', role: 'admin' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'b@p.test', pid: 'pb', role: 'admin' },
        ],
      );
      store = made.store;
      app = await buildApp({ config: testConfig(), store, now: () => now });
      a = await signIn(app, store, ADMIN_A, now);
      b = await signIn(app, store, ADMIN_B, now);
      op = await signIn(app, store, null, now);
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test('a team admin sets their own team’s policy; bad input and missing tokens change nothing', async () => {
      const page = await get('/console/privacy', a);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /aria-current="page">Privacy</);
      assert.match(page.body, /No retention policy/);
      assert.equal((await form(app, a, '/console/privacy/retention', { days: '90' })).statusCode, 403);
      const bad = await form(app, a, '/console/privacy/retention', { _csrf: a.csrf, days: '0' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /whole number from 1 to 36500/);
      assert.equal(await daysOf(A), null);
      const saved = await form(app, a, '/console/privacy/retention', { _csrf: a.csrf, days: '90' });
      assert.equal(saved.statusCode, 200);
      assert.match(saved.body, /Retention policy saved: leads not changed for 90 days/);
      assert.match(saved.body, /erased <strong>90 days<\/strong> after their last change/);
      assert.equal(await daysOf(A), 90);
      const audit = await store.audit.list({ teamId: A, action: null, since: null }, null, 10);
      assert.deepEqual(
        audit.map((r) => [r.action, r.actor, r.details]),
        [['retention.policy_set', { via: 'console', memberId: ADMIN_A }, { days: 90, previousDays: null }]],
      );
    });

    test('never another team’s: 404 and unchanged', async () => {
      assert.equal((await get(`/console/privacy?team=${B}`, a)).statusCode, 404);
      const other = await form(app, a, `/console/privacy/retention?team=${B}`, { _csrf: a.csrf, days: '7' });
      assert.equal(other.statusCode, 404);
      assert.equal(await daysOf(B), null);
      const bPage = await get('/console/privacy', b);
      assert.match(bPage.body, /No retention policy/);
    });

    test('the operator lists every policy, sets any team’s, and turns one off', async () => {
      const all = await get('/console/privacy', op);
      assert.equal(all.statusCode, 200);
      assert.match(
        all.body,
        new RegExp(`<a href="/console/privacy\\?team=${A}">${A}</a></td><td class="num">90<`),
      );
      const noTeam = await form(app, op, '/console/privacy/retention', { _csrf: op.csrf, days: '30' });
      assert.equal(noTeam.statusCode, 400);
      const set = await form(app, op, `/console/privacy/retention?team=${B}`, { _csrf: op.csrf, days: '30' });
      assert.equal(set.statusCode, 200);
      assert.equal(await daysOf(B), 30);
      const off = await form(app, op, `/console/privacy/retention?team=${B}`, {
        _csrf: op.csrf,
        clear: 'yes',
      });
      assert.equal(off.statusCode, 200);
      assert.match(off.body, /turned off/);
      assert.equal(await daysOf(B), null);
      assert.equal(await daysOf(A), 90);
      const audit = await store.audit.list({ teamId: B, action: null, since: null }, null, 10);
      assert.deepEqual(
        audit.map((r) => [r.action, r.actor.via, r.details]),
        [
          ['retention.policy_cleared', 'operator', { previousDays: 30 }],
          ['retention.policy_set', 'operator', { days: 30, previousDays: null }],
        ],
      );
    });
  });
}
