import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { AUDIT_PAGE_SIZE } from '../../src/http/console/audit-page.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { testConfig } from '../support/helpers.js';
import { type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 40 item 8, the console's audit view (docs/console.md): a team admin sees their team's
 * records, newest first, a page at a time with a link to older ones — never another team's
 * (nor by `?team=`); the operator sees every team's or one; the navigation links to it.
 */
const A = 4721;
const B = 4722;
const ADMIN_A = 47211;
const ADMIN_B = 47221;

for (const engine of enginesUnderTest()) {
  describe(`console audit view [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let a: Signed;
    let operator: Signed;
    const get = (url: string, s: Signed) => app.inject({ url, headers: { cookie: s.cookie } });
    /** The brownout ids the page shows, in its order (each record's details name one). */
    const shown = (body: string) => [...body.matchAll(/&quot;n&quot;:(\d+)/g)].map((m) => Number(m[1]));

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'audit@a.test', role: 'admin', pid: 'a' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'audit@b.test', role: 'admin', pid: 'b' },
        ],
      );
      store = made.store;
      app = await buildApp({ config: testConfig(), store });
      // Records of each team, told apart by `n` in their details; more than a page of A's.
      for (let n = 1; n <= AUDIT_PAGE_SIZE + 5; n++)
        await store.audit.record({
          at: 1_000 + n,
          teamId: A,
          actor: { via: 'server' },
          action: 'retention.run',
          details: { n },
        });
      await store.audit.record({
        at: 9_000,
        teamId: B,
        actor: { via: 'server' },
        action: 'retention.run',
        details: { n: 9999 },
      });
      a = await signIn(app, store, ADMIN_A, Date.now());
      operator = await signIn(app, store, null, Date.now());
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test('a team admin pages through their team’s records, newest first, and sees no other team’s', async () => {
      const first = await get('/console/audit', a);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['cache-control'], 'no-store');
      assert.match(first.body, /<a href="\/console\/audit" aria-current="page">Audit log<\/a>/);
      const top = shown(first.body);
      const all = Array.from({ length: AUDIT_PAGE_SIZE + 5 }, (_, i) => AUDIT_PAGE_SIZE + 5 - i);
      assert.deepEqual(top, all.slice(0, AUDIT_PAGE_SIZE));
      const older = /href="(\/console\/audit\?before=\d+)">Older records/.exec(first.body);
      assert.ok(older, 'a link to the older records');
      const second = await get(older[1]!, a);
      assert.deepEqual(shown(second.body), all.slice(AUDIT_PAGE_SIZE));
      assert.doesNotMatch(second.body, /Older records/);
      assert.ok(
        !first.body.includes('9999') && !second.body.includes('9999'),
        'team B’s record is not shown',
      );
      assert.equal((await get(`/console/audit?team=${B}`, a)).statusCode, 404);
      assert.equal((await get('/console/audit?before=x', a)).statusCode, 404);
      assert.equal((await app.inject({ url: '/console/audit' })).statusCode, 401);
    });

    test('the operator sees every team’s records, or one team’s', async () => {
      const every = await get('/console/audit', operator);
      assert.equal(every.statusCode, 200, every.body);
      assert.equal(shown(every.body)[0], 9999);
      const ofB = await get(`/console/audit?team=${B}`, operator);
      assert.deepEqual(shown(ofB.body), [9999]);
    });
  });
}
