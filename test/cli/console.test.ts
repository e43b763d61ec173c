import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load, makeApp } from '../support/helpers.js';
import { describeRun, jsonOf, leadline, storeArgs } from './cli.js';

/** `leadline console link` (issue 15 §1): a link that signs in once, for team admins and the operator only. */
const PUBLIC = 'https://leads.example';

for (const engine of enginesUnderTest()) {
  describe(`leadline console link [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    const run = (...args: string[]) =>
      leadline([...storeArgs(made.location), ...args], { env: { LEADLINE_PUBLIC_URL: PUBLIC } });
    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: 1541, name: 'Links' },
        { type: 'member', id: 15411, teamId: 1541, email: 'lead@links.test', role: 'admin' },
        { type: 'member', id: 15412, teamId: 1541, email: 'rep@links.test', role: 'member' },
      ]);
    });
    after(() => made.cleanup());

    test('prints a link for a team admin (by e-mail or id) that signs in once', async () => {
      const before = Date.now();
      const doc = jsonOf(run('--json', 'console', 'link', '--member', 'lead@links.test'));
      assert.match(doc.url, /^https:\/\/leads\.example\/console\/sign-in\/[0-9a-f]{64}$/);
      assert.deepEqual(doc.subject, { memberId: 15411, teamId: 1541 });
      const expires = Date.parse(doc.expiresAt);
      assert.ok(expires >= before + 15 * 60_000 - 1000 && expires <= Date.now() + 15 * 60_000, doc.expiresAt);
      const app = await makeApp(store, { LEADLINE_PUBLIC_URL: PUBLIC });
      try {
        const token = doc.url.split('/').at(-1);
        const signIn = () =>
          app.inject({
            method: 'POST',
            url: '/console/sign-in',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: `link=${token}`,
          });
        const first = await signIn();
        assert.equal(first.statusCode, 303);
        assert.match(String(first.headers['set-cookie']), /HttpOnly; SameSite=Strict; Secure/);
        assert.equal((await signIn()).statusCode, 400);
      } finally {
        await app.close();
      }
      const human = run('console', 'link', '--member', '15411');
      assert.equal(human.status, 0, describeRun(human));
      assert.match(
        human.stdout,
        /^https:\/\/leads\.example\/console\/sign-in\/[0-9a-f]{64}\nsigns in lead@links\.test \(team 1541\) once, until /,
      );
    });

    test('--operator makes the operator’s link', () => {
      assert.equal(jsonOf(run('--json', 'console', 'link', '--operator')).subject, 'operator');
    });

    test('refuses a member who is not a team admin, an unknown member, and unclear flags', () => {
      for (const [args, reason] of [
        [['--member', 'rep@links.test'], /is not a team admin/],
        [['--member', 'nobody@links.test'], /no member "nobody@links\.test"/],
        [[], /exactly one of --member/],
        [['--member', '15411', '--operator'], /exactly one of --member/],
      ] as const) {
        const r = run('console', 'link', ...args);
        assert.equal(r.status, 1, describeRun(r));
        assert.match(r.stderr, reason);
        assert.equal(r.stdout, '');
      }
    });
  });
}
