import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { load, testConfig } from '../support/helpers.js';
import { form, type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 40 §8 in the console (docs/console.md "Privacy"): "Erase a person" — a team admin erases
 * every lead of their team holding an e-mail, with a confirmation, and sees the receipt (no
 * e-mail in it); the receipt names the console member, the audit log has one record; another
 * team's lead with the same e-mail stays; no confirmation, a bad e-mail or no CSRF token erase
 * nothing; the e-mail is suppressed for the team afterwards.
 */
const A = 4071;
const B = 4072;
const ADMIN_A = 40711;
const ADMIN_B = 40721;
const EMAIL = 'gone.person@erase.test';

for (const engine of enginesUnderTest()) {
  describe(`console: erase a person [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let a: Signed;
    const now = Date.now();
    const held = async (team: number) =>
      (await store.leads.byEmail(team, EMAIL, 10)).filter((l) => !l.erased).length;

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'a@e.test', pid: 'pa', role: 'admin' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'b@e.test', pid: 'pb', role: 'admin' },
        ],
      );
      store = made.store;
      const lead = (userId: number, id: string, n: number) => ({
        type: 'lead',
        userId,
        id,
        epoch: now - 60_000 + n,
        isLead: true,
        name: 'Gone Person',
        email: n === 1 ? ` ${EMAIL.toUpperCase()}` : EMAIL,
      });
      await load(store, [lead(ADMIN_A, 'ea1', 1), lead(ADMIN_A, 'ea2', 2), lead(ADMIN_B, 'eb1', 3)]);
      app = await buildApp({ config: testConfig(), store, now: () => now });
      a = await signIn(app, store, ADMIN_A, now);
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test('no confirmation, no token or no e-mail: nothing is erased', async () => {
      const page = await app.inject({ url: '/console/privacy', headers: { cookie: a.cookie } });
      assert.match(page.body, /<h2>Erase a person<\/h2>/);
      assert.equal(
        (await form(app, a, '/console/privacy/erase', { email: EMAIL, confirm: 'yes' })).statusCode,
        403,
      );
      const unconfirmed = await form(app, a, '/console/privacy/erase', { _csrf: a.csrf, email: EMAIL });
      assert.equal(unconfirmed.statusCode, 400);
      assert.match(unconfirmed.body, /Tick the confirmation/);
      const bad = await form(app, a, '/console/privacy/erase', {
        _csrf: a.csrf,
        email: 'nobody',
        confirm: 'yes',
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(await held(A), 2);
    });

    test("the team admin erases the person from their team and sees the receipt; team B's lead stays", async () => {
      const res = await form(app, a, '/console/privacy/erase', {
        _csrf: a.csrf,
        email: EMAIL,
        confirm: 'yes',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /Erased: the receipt/);
      assert.match(res.body, /2 leads erased/);
      assert.ok(!res.body.toLowerCase().includes(EMAIL), 'the receipt page does not show the e-mail');
      const id = /&quot;erasureId&quot;: &quot;([0-9a-f-]{36})&quot;/.exec(res.body)?.[1];
      assert.ok(id, 'the receipt names its erasure');
      const receipt = await store.erasures.receipt(id);
      assert.deepEqual(
        [receipt?.teamId, receipt?.requestedBy, receipt?.counts.leads],
        [A, { via: 'console', memberId: ADMIN_A }, 2],
      );
      assert.equal(await held(A), 0);
      assert.equal(await held(B), 1, "another team's lead with the same e-mail is not touched");
      const audit = await store.audit.list({ teamId: A, action: 'lead.erased', since: null }, null, 10);
      assert.deepEqual(
        audit.map((r) => [r.actor, (r.details as { erasureId: string }).erasureId]),
        [[{ via: 'console', memberId: ADMIN_A }, id]],
      );
      assert.equal((await store.erasures.suppressions(A)).length, 1, 'the e-mail is suppressed for the team');
    });
  });
}
