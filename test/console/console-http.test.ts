import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createSignInLink, SESSION_IDLE_MS, SIGN_IN_LINK_MS } from '../../src/console/sign-in.js';
import { createKey } from '../../src/keys/create-key.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { auth, testConfig } from '../support/helpers.js';
import { csrfOf, form, type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 15 §1, §2, §4 through the real app: sign-in links, the session cookie, CSRF, idle
 * timeout, sign-out, and a team admin confined to their team (URL tampering included).
 */
const A = 1521;
const B = 1522;
const ADMIN_A = 15211;
const REP_A = 15212;
const ADMIN_B = 15221;
const HOUR = 3_600_000;

for (const engine of enginesUnderTest()) {
  describe(`console over HTTP [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let clock = Date.now();
    let keyB = { id: 0, key: '' };
    let a: Signed;
    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'admin@a.test', role: 'admin' },
          { type: 'member', id: REP_A, teamId: A, email: 'rep@a.test', role: 'member' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'admin@b.test', role: 'admin' },
        ],
      );
      store = made.store;
      keyB = await createKey(store, { member: ADMIN_B, label: 'team b secret label' });
      app = await buildApp({ config: testConfig(), store, now: () => clock });
      a = await signIn(app, store, ADMIN_A, clock);
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test('opening a link does not spend it; its POST does, once; the cookie is HttpOnly, SameSite=Strict', async () => {
      const link = await createSignInLink(store, ADMIN_A, clock);
      const shown = await app.inject({ url: `/console/sign-in/${link.token}` });
      assert.equal(shown.statusCode, 200);
      assert.match(String(shown.headers['content-security-policy']), /script-src 'self'/);
      assert.doesNotMatch(String(shown.headers['content-security-policy']), /unsafe-inline/);
      const post = () =>
        app.inject({
          method: 'POST',
          url: '/console/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `link=${link.token}`,
        });
      const first = await post();
      assert.equal(first.statusCode, 303);
      assert.equal(first.headers.location, '/console/keys');
      const cookie = String(first.headers['set-cookie']);
      assert.match(cookie, /^leadline_console=[0-9a-f]{64}; Path=\/console; HttpOnly; SameSite=Strict$/);
      const again = await post();
      assert.equal(again.statusCode, 400, 'a used link is refused');
      assert.match(again.body, /already been used/);
    });

    test('a form posted from another site is refused, sign-in included (no session, so no token yet)', async () => {
      const link = await createSignInLink(store, ADMIN_A, clock);
      const post = (headers: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url: '/console/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: `link=${link.token}`,
        });
      const foreign = await post({ origin: 'https://evil.example' });
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.headers['set-cookie'], undefined);
      assert.equal((await post({ origin: 'null', 'sec-fetch-site': 'cross-site' })).statusCode, 403);
      // `Origin: null` comes from a no-referrer or sandboxed page, another site's as well as ours
      // (a browser without Sec-Fetch-Site cannot tell them apart): refused, whatever else the
      // request says (issue 36). The console's pages are same-origin, so its forms name its origin.
      const refusedHeaders: Record<string, string>[] = [
        { origin: 'null' },
        { origin: 'null', 'sec-fetch-site': 'same-origin' },
        { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      ];
      for (const headers of refusedHeaders) {
        const refused = await post(headers);
        assert.equal(refused.statusCode, 403, JSON.stringify(headers));
        assert.equal(refused.headers['set-cookie'], undefined);
        assert.match(String(refused.headers['content-type']), /^text\/html/);
        assert.match(refused.body, /<title>Refused — leadline console<\/title>/);
        assert.match(refused.body, /This form was sent from another site\./);
      }
      const sameSite = await form(app, a, '/console/keys', { _csrf: a.csrf, member: String(REP_A) });
      assert.equal(sameSite.statusCode, 200, 'no Origin (as app.inject sends) is not refused');
      const own = await post({ origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' });
      assert.equal(own.statusCode, 303, 'from its own page: LEADLINE_PUBLIC_URL’s origin');
      assert.equal(own.headers['set-cookie'] !== undefined, true);
    });

    test('every console POST refuses `Origin: null` and another origin, with or without a session (issue 36)', async () => {
      const s = await signIn(app, store, ADMIN_A, clock);
      const keyCount = async () => (await store.keys.list(REP_A)).length;
      const before = await keyCount();
      const posts: [string, Record<string, string>][] = [
        ['/console/keys', { _csrf: s.csrf, member: String(REP_A), label: 'from null' }],
        ['/console/sign-out', { _csrf: s.csrf }],
      ];
      for (const [url, fields] of posts) {
        for (const origin of ['null', 'https://evil.example', 'http://127.0.0.1:3001']) {
          const res = await app.inject({
            method: 'POST',
            url,
            headers: { cookie: s.cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams(fields).toString(),
          });
          assert.equal(res.statusCode, 403, `${url} from ${origin}`);
          assert.match(res.body, /This form was sent from another site\./);
        }
      }
      assert.equal(await keyCount(), before, 'no key made');
      assert.equal(
        (await app.inject({ url: '/console/keys', headers: { cookie: s.cookie } })).statusCode,
        200,
        'still signed in: the sign-out was refused',
      );
      // The address the request came to is the console's own too (a host other than the public URL's).
      const byHost = await app.inject({
        method: 'POST',
        url: '/console/keys',
        headers: {
          cookie: s.cookie,
          host: 'console.internal:8080',
          origin: 'http://console.internal:8080',
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({ _csrf: s.csrf, member: String(REP_A), label: 'by host' }).toString(),
      });
      assert.equal(byHost.statusCode, 200, byHost.body);
    });

    test("console pages send Referrer-Policy: same-origin, so a browser names the console's origin on their forms (issue 36)", async () => {
      const link = await createSignInLink(store, ADMIN_A, clock);
      for (const res of [
        await app.inject({ url: `/console/sign-in/${link.token}` }),
        await app.inject({ url: '/console/keys', headers: { cookie: a.cookie } }),
        await app.inject({ url: '/console/keys' }),
        await app.inject({ url: '/console/nothing-here' }),
      ]) {
        assert.equal(res.headers['referrer-policy'], 'same-origin', res.raw.req.url);
      }
    });

    test('form text PostgreSQL cannot store (a NUL) is a 400 page naming the field, nothing stored (issue 36)', async () => {
      const res = await form(app, a, '/console/keys', {
        _csrf: a.csrf,
        member: String(REP_A),
        label: 'bad\u0000label',
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /text\/html/);
      assert.match(
        res.body,
        /The field &quot;label&quot; contains U\+0000 \(NUL\)|The field "label" contains U\+0000 \(NUL\)/,
      );
      const keys = await store.keys.list(REP_A);
      assert.ok(!keys.some((k) => k.label?.startsWith('bad')), 'no key made');
    });

    test('an expired link is refused', async () => {
      const link = await createSignInLink(store, ADMIN_A, clock - SIGN_IN_LINK_MS - 1);
      const res = await app.inject({
        method: 'POST',
        url: '/console/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `link=${link.token}`,
      });
      assert.equal(res.statusCode, 400);
    });

    test('the cookie is Secure when the public URL is https', async () => {
      const secure = await buildApp({
        config: testConfig({ LEADLINE_PUBLIC_URL: 'https://leads.example' }),
        store,
      });
      try {
        const link = await createSignInLink(store, ADMIN_A, Date.now());
        const res = await secure.inject({
          method: 'POST',
          url: '/console/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `link=${link.token}`,
        });
        assert.match(String(res.headers['set-cookie']), /; Secure/);
      } finally {
        await secure.close();
      }
    });

    test('without a session every view is a 401 page, and no API key opens it', async () => {
      for (const url of ['/console/keys', '/console/v1', '/console/v1.csv', '/console/brownouts']) {
        const res = await app.inject({ url, headers: auth(keyB.key) });
        assert.equal(res.statusCode, 401, url);
        assert.match(String(res.headers['content-type']), /text\/html/);
      }
    });

    test("a team admin sees their team's keys only; another team's are not found, by URL too", async () => {
      const own = await createKey(store, { member: REP_A, label: 'rep key' });
      const page = await app.inject({ url: '/console/keys', headers: { cookie: a.cookie } });
      assert.match(page.body, /rep key/);
      assert.doesNotMatch(page.body, /team b secret label/);
      assert.doesNotMatch(page.body, new RegExp(keyB.key.slice(0, 12)));
      for (const url of [
        `/console/keys?team=${B}`,
        `/console/v1?team=${B}`,
        `/console/v1.csv?team=${B}`,
        `/console/keys/${keyB.id}/revoke`,
      ]) {
        const res = await app.inject({ url, headers: { cookie: a.cookie } });
        assert.equal(res.statusCode, 404, url);
      }
      const revoke = await form(app, a, `/console/keys/${keyB.id}/revoke`, { _csrf: a.csrf });
      assert.equal(revoke.statusCode, 404);
      const create = await form(app, a, '/console/keys', { _csrf: a.csrf, member: String(ADMIN_B) });
      assert.equal(create.statusCode, 404, "no key for another team's member");
      const listB = await store.keys.list(ADMIN_B);
      assert.deepEqual(
        listB.map((k) => [k.id, k.revokedAt]),
        [[keyB.id, null]],
        "team B's key untouched",
      );
      assert.equal((await store.keys.list(ADMIN_B)).length, 1);
      assert.ok(own.id > 0);
    });

    test('a change without the CSRF token, or with a wrong one, is refused and changes nothing', async () => {
      const before = (await store.keys.list(REP_A)).length;
      for (const fields of [
        { member: String(REP_A) },
        { member: String(REP_A), _csrf: '0'.repeat(64) },
      ] as Record<string, string>[]) {
        const res = await form(app, a, '/console/keys', fields);
        assert.equal(res.statusCode, 403);
      }
      assert.equal((await store.keys.list(REP_A)).length, before);
    });

    test('create shows the secret once; the key works; revoke refuses it from then on', async () => {
      const res = await form(app, a, '/console/keys', {
        _csrf: a.csrf,
        member: String(REP_A),
        label: 'made in console',
      });
      assert.equal(res.statusCode, 200);
      const secret = /id="secret" class="secret-value" value="(llk_[0-9A-Za-z]+)"/.exec(res.body)?.[1];
      assert.ok(secret, 'the secret is on the page');
      assert.equal((await app.inject({ url: '/api/pub/v2/me', headers: auth(secret) })).statusCode, 200);
      const again = await app.inject({ url: '/console/keys', headers: { cookie: a.cookie } });
      assert.ok(!again.body.includes(secret), 'never shown again');
      const made = (await store.keys.list(REP_A)).find((k) => k.label === 'made in console')!;
      const confirm = await app.inject({
        url: `/console/keys/${made.id}/revoke`,
        headers: { cookie: a.cookie },
      });
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /cannot be undone/);
      const revoked = await form(app, a, `/console/keys/${made.id}/revoke`, { _csrf: csrfOf(confirm.body) });
      assert.equal(revoked.statusCode, 303);
      assert.equal((await app.inject({ url: '/api/pub/v2/me', headers: auth(secret) })).statusCode, 401);
    });

    test('brownouts and the legacy grant are the operator’s', async () => {
      assert.equal(
        (await app.inject({ url: '/console/brownouts', headers: { cookie: a.cookie } })).statusCode,
        403,
      );
      const tryAdd = await form(app, a, '/console/brownouts', {
        _csrf: a.csrf,
        starts: '2030-01-01T00:00',
        ends: '2030-01-01T01:00',
      });
      assert.equal(tryAdd.statusCode, 403);
      const own = (await store.keys.list(REP_A))[0]!;
      const grant = await form(app, a, `/console/keys/${own.id}/legacy-v1`, { _csrf: a.csrf, grant: 'yes' });
      assert.equal(grant.statusCode, 403);
      assert.equal((await store.keys.list(REP_A))[0]!.legacyV1, false);
    });

    test('the operator sees every team, schedules a brownout that v1 honours, and removes it', async () => {
      const op = await signIn(app, store, null, clock);
      const keys = await app.inject({ url: '/console/keys', headers: { cookie: op.cookie } });
      assert.match(keys.body, /team b secret label/);
      assert.match(keys.body, /rep key/);
      const v1Key = await createKey(store, { member: ADMIN_B, legacyV1: true });
      const start = new Date(clock - 60_000).toISOString().slice(0, 16);
      const end = new Date(clock + 3_600_000).toISOString().slice(0, 16);
      const added = await form(app, op, '/console/brownouts', {
        _csrf: op.csrf,
        starts: start,
        ends: end,
        keys: String(v1Key.id),
      });
      assert.equal(added.statusCode, 200, added.body);
      const [b] = (await store.retirement.brownouts()).filter((x) => x.keyIds?.includes(v1Key.id));
      assert.ok(b);
      const gone = await app.inject({ url: '/api/pub/leads/getLastLead', headers: auth(v1Key.key) });
      assert.equal(gone.statusCode, 410);
      const removed = await form(app, op, `/console/brownouts/${b.id}/remove`, { _csrf: op.csrf });
      assert.equal(removed.statusCode, 303);
      assert.equal(
        (await store.retirement.brownouts()).some((x) => x.id === b.id),
        false,
      );
    });

    test('the operator grants and takes back legacy v1; unknown teams are not found; a team admin may name their own', async () => {
      const op = await signIn(app, store, null, clock);
      const key = await createKey(store, { member: REP_A, label: 'legacy toggle' });
      for (const [grant, want] of [
        ['yes', true],
        ['no', false],
      ] as const) {
        const res = await form(app, op, `/console/keys/${key.id}/legacy-v1?team=${A}`, {
          _csrf: op.csrf,
          grant,
        });
        assert.equal(res.statusCode, 303);
        assert.equal(res.headers.location, `/console/keys?team=${A}`);
        assert.equal((await store.keys.list(REP_A)).find((k) => k.id === key.id)?.legacyV1, want);
      }
      assert.equal(
        (await app.inject({ url: '/console/keys?team=999999', headers: { cookie: op.cookie } })).statusCode,
        404,
      );
      assert.equal(
        (await app.inject({ url: '/console/keys?team=x', headers: { cookie: op.cookie } })).statusCode,
        404,
      );
      assert.equal(
        (await app.inject({ url: `/console/keys?team=${A}`, headers: { cookie: a.cookie } })).statusCode,
        200,
      );
    });

    test('the v1 view: a chart data block (no inline script), and a CSV export', async () => {
      const page = await app.inject({ url: '/console/v1?days=7', headers: { cookie: a.cookie } });
      assert.equal(page.statusCode, 200);
      const data = JSON.parse(
        /<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(page.body)![1]!,
      );
      assert.equal(data.days.length, 7);
      assert.deepEqual(data.series.map((s: { operation: string }) => s.operation).sort(), [
        'getLastLead',
        'getLastLeadSubTeam',
        'getLastLeadTeam',
        'getLeadsTimeRange',
        'getLeadsTimeRangeForTeam',
      ]);
      assert.equal(
        page.body.match(/<script(?![^>]*(src=|type="application\/json"))/g),
        null,
        'every script is a file',
      );
      const csv = await app.inject({ url: '/console/v1.csv?days=7', headers: { cookie: a.cookie } });
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      assert.match(csv.body, /^keyId,prefix,member,status,v1Calls,getLastLead,/);
      assert.doesNotMatch(csv.body, /admin@b\.test/);
    });

    test('a session ends after the idle timeout, and at sign-out', async () => {
      const s = await signIn(app, store, ADMIN_A, clock);
      clock += SESSION_IDLE_MS - 1000;
      assert.equal(
        (await app.inject({ url: '/console/keys', headers: { cookie: s.cookie } })).statusCode,
        200,
      );
      clock += SESSION_IDLE_MS + 1;
      assert.equal(
        (await app.inject({ url: '/console/keys', headers: { cookie: s.cookie } })).statusCode,
        401,
      );
      const t = await signIn(app, store, ADMIN_A, clock);
      const out = await form(app, t, '/console/sign-out', { _csrf: t.csrf });
      assert.equal(out.statusCode, 200);
      assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
      assert.equal(
        (await app.inject({ url: '/console/keys', headers: { cookie: t.cookie } })).statusCode,
        401,
      );
    });

    test('a session ends 12 hours after sign-in however active (LEADLINE_CONSOLE_SESSION_MAX_HOURS, issue 36)', async () => {
      const start = clock;
      const s = await signIn(app, store, ADMIN_A, clock);
      const keys = () => app.inject({ url: '/console/keys', headers: { cookie: s.cookie } });
      // A click every 20 minutes: never idle for 30.
      for (clock = start + 20 * 60_000; clock <= start + 12 * HOUR - 20 * 60_000; clock += 20 * 60_000) {
        assert.equal((await keys()).statusCode, 200, `${(clock - start) / 60_000} min after sign-in`);
      }
      clock = start + 12 * HOUR - 1000;
      assert.equal((await keys()).statusCode, 200, 'a second before its end');
      clock = start + 12 * HOUR;
      const ended = await keys();
      assert.equal(ended.statusCode, 401, 'twelve hours after sign-in');
      assert.match(ended.body, /signed in more than 12 hours ago/);
    });

    test('LEADLINE_CONSOLE_SESSION_MAX_HOURS sets the lifetime', async () => {
      const short = await buildApp({
        config: testConfig({ LEADLINE_CONSOLE_SESSION_MAX_HOURS: '1' }),
        store,
        now: () => clock,
      });
      try {
        const start = clock;
        const s = await signIn(short, store, ADMIN_A, clock);
        const keys = () => short.inject({ url: '/console/keys', headers: { cookie: s.cookie } });
        clock = start + 25 * 60_000;
        assert.equal((await keys()).statusCode, 200);
        clock = start + 50 * 60_000;
        assert.equal((await keys()).statusCode, 200);
        clock = start + HOUR;
        assert.equal((await keys()).statusCode, 401, 'an hour after sign-in');
      } finally {
        await short.close();
      }
    });
  });
}
