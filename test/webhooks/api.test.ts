import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { HostLookup } from '../../src/delivery/destination.js';
import type { Store } from '../../src/store.js';
import { SecretSeal } from '../../src/webhooks/secret.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, testConfig } from '../support/helpers.js';

/**
 * Issue 13 §3 and §6: team admins manage their team's endpoints through /api/pub/v2/webhooks;
 * URLs must be https on public addresses unless the operator allows otherwise; the secret is
 * shown once and sealed at rest when a key is configured.
 */
const PATH = '/api/pub/v2/webhooks';
const TEAM_A = 1401;
const TEAM_B = 1402;
const A_ADMIN = 14011;
const A_MEMBER = 14012;
const B_ADMIN = 14021;
const SUB_A = 1411;
const SUB_B = 1421;
const SEAL_KEY = Buffer.alloc(32, 7);

/** Names the tests resolve; anything else does not resolve (no network in tests). */
const DNS: Record<string, string[]> = {
  'hooks.public.test': ['93.184.216.34'],
  'loopback.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '10.1.2.3'],
  'v6-loopback.test': ['::1'],
  'v4-compatible.test': ['::7f00:1'],
  'site-local.test': ['fec0::1'],
  'mapped.test': ['::ffff:10.0.0.1'],
  'nat64-private.test': ['64:ff9b::a9fe:a9fe'],
  'nat64-public.test': ['64:ff9b::808:808'],
  'v6-public.test': ['2606:4700::1111'],
};
const lookup: HostLookup = async (host) => {
  const found = DNS[host];
  if (found === undefined) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

const directory = [
  { type: 'team', id: TEAM_A, name: 'A' },
  { type: 'team', id: TEAM_B, name: 'B' },
  { type: 'member', id: A_ADMIN, teamId: TEAM_A, email: 'admin@a.test', role: 'admin', pid: 'a1' },
  { type: 'member', id: A_MEMBER, teamId: TEAM_A, email: 'member@a.test', role: 'member', pid: 'a2' },
  { type: 'member', id: B_ADMIN, teamId: TEAM_B, email: 'admin@b.test', role: 'admin', pid: 'b1' },
  { type: 'subteam', id: SUB_A, teamId: TEAM_A, name: 'A sub', members: [A_MEMBER], admins: [] },
  { type: 'subteam', id: SUB_B, teamId: TEAM_B, name: 'B sub', members: [B_ADMIN], admins: [] },
];

for (const engine of enginesUnderTest()) {
  describe(`webhook endpoints API [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let open: FastifyInstance;
    let ported: FastifyInstance;
    const keys: Record<string, string> = {};

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, directory);
      const key = SEAL_KEY.toString('base64');
      app = await buildApp({
        config: testConfig({ LEADLINE_WEBHOOK_SECRET_KEY: key }),
        store,
        hostLookup: lookup,
      });
      open = await buildApp({
        config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }),
        store,
        hostLookup: lookup,
      });
      ported = await buildApp({
        config: testConfig({ LEADLINE_WEBHOOK_PORTS: '443,8443' }),
        store,
        hostLookup: lookup,
      });
      keys.a = await keyFor(store, A_ADMIN);
      keys.member = await keyFor(store, A_MEMBER);
      keys.b = await keyFor(store, B_ADMIN);
    });
    after(async () => {
      await app.close();
      await open.close();
      await ported.close();
      await made.cleanup();
    });

    const call = (method: string, url: string, key: string, payload?: object, on = app) =>
      on.inject({
        method: method as 'GET',
        url,
        headers: auth(key),
        ...(payload === undefined ? {} : { payload }),
      });

    it('creates an endpoint, shows its secret once, and keeps it sealed at rest', async () => {
      const res = await call('POST', PATH, keys.a!, {
        url: 'https://hooks.public.test/leads',
        description: 'CRM',
      });
      assert.equal(res.statusCode, 201, res.body);
      const { data } = res.json();
      assert.equal(res.headers.location, `${PATH}/${data.id}`);
      assert.match(data.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.deepEqual(data.eventTypes, ['lead.created', 'webhook.endpoint.disabled']);
      assert.equal(data.payload, 'full');
      assert.equal(data.enabled, true);
      const got = (await call('GET', `${PATH}/${data.id}`, keys.a!)).json().data;
      assert.equal(got.secret, undefined, 'never shown again');
      const { secret: _shown, ...withoutSecret } = data;
      assert.deepEqual(got, withoutSecret);
      const stored = await store.webhooks.signingSecrets(data.id);
      assert.ok(stored?.current.startsWith('sealed1:'), 'sealed under the operator key');
      assert.ok(!stored?.current.includes(data.secret.slice(6)));
      assert.equal(new SecretSeal(SEAL_KEY).open(stored!.current), data.secret);
      const list = (await call('GET', PATH, keys.a!)).json().data.endpoints;
      assert.deepEqual(
        list.map((e: { id: string }) => e.id),
        [data.id],
      );
    });

    it('without an operator key the store holds the secret as shown', async () => {
      const res = await call('POST', PATH, keys.b!, { url: 'http://127.0.0.1:9/hook' }, open);
      assert.equal(res.statusCode, 201, res.body);
      const { data } = res.json();
      assert.equal((await store.webhooks.signingSecrets(data.id))?.current, data.secret);
    });

    it("a team sees only its own endpoints; members and other teams' admins get 403/404", async () => {
      const a = (await call('GET', PATH, keys.a!)).json().data.endpoints as { id: string }[];
      const b = (await call('GET', PATH, keys.b!)).json().data.endpoints as { id: string }[];
      assert.ok(a.length > 0 && b.length > 0);
      assert.ok(!a.some((e) => b.some((f) => f.id === e.id)));
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await call(
          method,
          `${PATH}/${a[0]!.id}`,
          keys.b!,
          method === 'PATCH' ? { enabled: false } : undefined,
        );
        assert.equal(res.statusCode, 404, `${method} another team's endpoint`);
      }
      assert.equal((await call('POST', `${PATH}/${a[0]!.id}/rotate-secret`, keys.b!)).statusCode, 404);
      assert.equal((await call('GET', PATH, keys.member!)).statusCode, 403);
      assert.equal(
        (await call('POST', PATH, keys.member!, { url: 'https://hooks.public.test/x' })).statusCode,
        403,
      );
      assert.equal((await call('GET', `${PATH}/not-a-uuid`, keys.a!)).statusCode, 404);
      assert.equal((await call('PUT', PATH, keys.a!, {})).statusCode, 405);
      assert.equal(await store.webhooks.endpoint({ teamId: TEAM_B }, a[0]!.id), null);
    });

    it('a malformed JSON body is a 400 that says so (issue 36)', async () => {
      for (const payload of ['not json', '{"url":', '{"url":"https://hooks.public.test/j",}']) {
        const res = await app.inject({
          method: 'POST',
          url: PATH,
          headers: { ...auth(keys.a!), 'content-type': 'application/json' },
          payload,
        });
        assert.equal(res.statusCode, 400, payload);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.json().detail, 'The request body is not valid JSON.', payload);
      }
    });

    it('text PostgreSQL cannot store (NUL, a lone surrogate) is a 400 naming the member, on both engines (issue 36)', async () => {
      const url = 'https://hooks.public.test/t';
      const refused: [object, string, RegExp][] = [
        [{ url, description: 'a\u0000b' }, '/description', /U\+0000 \(NUL\)/],
        [{ url, description: 'a\ud800b' }, '/description', /unpaired surrogate \(U\+D800\)/],
        [{ url: `${url}\u0000x` }, '/url', /U\+0000 \(NUL\)/],
        [{ url: `${url}\udc00` }, '/url', /unpaired surrogate \(U\+DC00\)/],
      ];
      const before = (await call('GET', PATH, keys.a!)).json().data.endpoints.length;
      for (const [body, name, reason] of refused) {
        const res = await call('POST', PATH, keys.a!, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const p = res.json();
        assert.equal(p.invalid_params[0].name, name);
        assert.match(p.invalid_params[0].reason, reason);
      }
      assert.equal((await call('GET', PATH, keys.a!)).json().data.endpoints.length, before, 'nothing stored');
      const made = (await call('POST', PATH, keys.a!, { url, description: 'ok' })).json().data;
      for (const [body, name] of refused) {
        const res = await call('PATCH', `${PATH}/${made.id}`, keys.a!, body);
        assert.equal(res.statusCode, 400, `PATCH ${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().invalid_params[0].name, name);
      }
      assert.equal((await call('GET', `${PATH}/${made.id}`, keys.a!)).json().data.description, 'ok');
      await call('DELETE', `${PATH}/${made.id}`, keys.a!);
    });

    it('refuses non-public destinations without the operator setting (SSRF)', async () => {
      const refused = {
        'http://hooks.public.test/x': /must be https/,
        'https://127.0.0.1/x': /127\.0\.0\.1.*not a public address/,
        'https://10.0.0.1/x': /10\.0\.0\.1.*not a public address/,
        'https://169.254.169.254/latest/meta-data': /169\.254\.169\.254.*not a public address/,
        'https://[::1]/x': /::1.*not a public address/,
        'https://loopback.test/x': /127\.0\.0\.1.*not a public address/,
        'https://v6-loopback.test/x': /::1.*not a public address/,
        'https://mixed.test/x': /10\.1\.2\.3.*not a public address/,
        // IPv6 outside global unicast, and IPv6 forms carrying a private IPv4 address.
        'https://[::7f00:1]/x': /::7f00:1 \(127\.0\.0\.1\).*not a public address/,
        'https://[::127.0.0.1]/x': /127\.0\.0\.1.*not a public address/,
        'https://[fec0::1]/x': /fec0::1.*not a public address/,
        'https://[::ffff:192.168.0.1]/x': /192\.168\.0\.1.*not a public address/,
        'https://[64:ff9b::10.0.0.1]/x': /10\.0\.0\.1.*not a public address/,
        'https://v4-compatible.test/x': /127\.0\.0\.1.*not a public address/,
        'https://site-local.test/x': /fec0::1.*not a public address/,
        'https://mapped.test/x': /10\.0\.0\.1.*not a public address/,
        'https://nat64-private.test/x': /169\.254\.169\.254.*not a public address/,
        'https://localhost/x': /public host/,
        'https://nowhere.test/x': /does not resolve/,
        'https://user:pw@hooks.public.test/x': /credentials/,
        'not a url': /absolute URL/,
      };
      for (const [url, reason] of Object.entries(refused)) {
        const res = await call('POST', PATH, keys.a!, { url });
        assert.equal(res.statusCode, 400, url);
        const problem = res.json();
        assert.equal(problem.invalid_params[0].name, '/url');
        assert.match(problem.invalid_params[0].reason, reason, url);
      }
      for (const url of [
        'https://nat64-public.test/x',
        'https://v6-public.test/x',
        'https://[2606:4700::1111]/x',
        'https://[64:ff9b::8.8.8.8]/x',
      ]) {
        const res = await call('POST', PATH, keys.a!, { url });
        assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
        await call('DELETE', `${PATH}/${res.json().data.id}`, keys.a!);
      }
      // Issue 37: what a local receiver needs is said in the problem's detail.
      for (const [url, refusal] of [
        ['http://127.0.0.1:8080/x', 'must be https; http is'],
        ['https://localhost:8080/x', 'must be a public host; localhost is'],
        ['https://127.0.0.1:8080/x', 'which is not a public address; private addresses are'],
      ] as const) {
        const { detail } = (await call('POST', PATH, keys.a!, { url })).json();
        assert.ok(
          detail.includes(
            `${refusal} allowed only with LEADLINE_WEBHOOK_ALLOW_PRIVATE=true (receivers on your own network)`,
          ),
          `${url}: ${detail}`,
        );
      }
      const some = (await call('GET', PATH, keys.a!)).json().data.endpoints[0];
      const patched = await call('PATCH', `${PATH}/${some.id}`, keys.a!, { url: 'https://loopback.test/x' });
      assert.equal(patched.statusCode, 400, 'checked on update too');
      const allowed = await call('POST', PATH, keys.a!, { url: 'http://loopback.test:8080/x' }, open);
      assert.equal(allowed.statusCode, 201, 'the operator setting allows http and private addresses');
      await call('DELETE', `${PATH}/${allowed.json().data.id}`, keys.a!);
    });

    it('refuses ports outside LEADLINE_WEBHOOK_PORTS, saying which are allowed (issue 36)', async () => {
      const refused = await call('POST', PATH, keys.a!, { url: 'https://hooks.public.test:8080/x' }, ported);
      assert.equal(refused.statusCode, 400, refused.body);
      const problem = refused.json();
      assert.equal(problem.invalid_params[0].name, '/url');
      assert.match(
        problem.detail,
        /port 8080 is not allowed: webhooks go to ports 443, 8443 only \(LEADLINE_WEBHOOK_PORTS\)/,
      );
      for (const url of ['https://hooks.public.test/x', 'https://hooks.public.test:8443/x']) {
        const res = await call('POST', PATH, keys.a!, { url }, ported);
        assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
        const id = res.json().data.id;
        const moved = await call(
          'PATCH',
          `${PATH}/${id}`,
          keys.a!,
          { url: 'https://hooks.public.test:22/x' },
          ported,
        );
        assert.equal(moved.statusCode, 400, 'checked on update too');
        await call('DELETE', `${PATH}/${id}`, keys.a!);
      }
    });

    it('records who created an endpoint; it keeps working when their key is revoked or they leave (issue 36)', async () => {
      const mover = 14013;
      await load(store, [
        { type: 'member', id: mover, teamId: TEAM_A, email: 'mover@a.test', role: 'admin', pid: 'a3' },
      ]);
      const moverKey = await keyFor(store, mover);
      const keyId = (await store.keys.list(mover)).at(-1)!.id;
      const res = await call('POST', PATH, moverKey, { url: 'https://hooks.public.test/by-mover' });
      assert.equal(res.statusCode, 201, res.body);
      const { id, createdBy } = res.json().data;
      assert.deepEqual(createdBy, {
        via: 'api',
        memberId: mover,
        keyId,
        memberRemoved: false,
        keyRevoked: false,
      });
      await store.keys.revoke(keyId, Date.now());
      const revoked = (await call('GET', `${PATH}/${id}`, keys.a!)).json().data;
      assert.deepEqual(revoked.createdBy, {
        via: 'api',
        memberId: mover,
        keyId,
        memberRemoved: false,
        keyRevoked: true,
      });
      await load(store, [
        { type: 'member', id: mover, teamId: TEAM_B, email: 'mover@a.test', role: 'admin', pid: 'a3' },
      ]);
      const moved = (await call('GET', PATH, keys.a!))
        .json()
        .data.endpoints.find((e: { id: string }) => e.id === id);
      assert.deepEqual(moved.createdBy, {
        via: 'api',
        memberId: mover,
        keyId,
        memberRemoved: true,
        keyRevoked: true,
      });
      assert.equal(moved.enabled, true, 'the endpoint keeps working');
      assert.ok((await store.webhooks.endpoints(TEAM_A)).some((e) => e.id === id && e.enabled));
      assert.equal((await call('DELETE', `${PATH}/${id}`, keys.a!)).statusCode, 204);
    });

    it("filters name the team's members and subteams only", async () => {
      const bad = await call('POST', PATH, keys.a!, {
        url: 'https://hooks.public.test/f',
        memberIds: [A_MEMBER, B_ADMIN],
        subteamIds: [SUB_B],
      });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        bad.json().invalid_params.map((p: { name: string }) => p.name),
        ['/memberIds/1', '/subteamIds/0'],
      );
      const good = await call('POST', PATH, keys.a!, {
        url: 'https://hooks.public.test/f',
        memberIds: [A_MEMBER],
        subteamIds: [SUB_A],
      });
      assert.equal(good.statusCode, 201, good.body);
      assert.deepEqual([good.json().data.memberIds, good.json().data.subteamIds], [[A_MEMBER], [SUB_A]]);
      const cleared = await call('PATCH', `${PATH}/${good.json().data.id}`, keys.a!, { memberIds: null });
      assert.deepEqual([cleared.json().data.memberIds, cleared.json().data.subteamIds], [null, [SUB_A]]);
      assert.equal((await call('DELETE', `${PATH}/${good.json().data.id}`, keys.a!)).statusCode, 204);
    });

    it('disabling stops deliveries for the team (the log keeps the events); enabling starts them again', async () => {
      const endpoints = (await call('GET', PATH, keys.a!)).json().data.endpoints as { id: string }[];
      for (const e of endpoints) {
        const res = await call('PATCH', `${PATH}/${e.id}`, keys.a!, { enabled: false });
        assert.equal(res.json().data.enabled, false);
        assert.equal(res.json().data.disabledReason, null);
      }
      const lead = (id: string) => ({
        type: 'lead',
        userId: A_ADMIN,
        id,
        epoch: 1_750_000_000_000,
        isLead: true,
      });
      /** Dispatches what waits; the first endpoint's deliveries, newest first, by lead. */
      const delivered = async () => {
        while ((await store.deliveries.dispatch(1000, Date.now())) > 0);
        return ((await store.deliveries.deliveries('operator', endpoints[0]!.id, 1000)) ?? []).length;
      };
      const before = (await store.webhooks.events(TEAM_A, 0, 1000)).length;
      const deliveredBefore = await delivered();
      await load(store, [lead('while-disabled')]);
      assert.deepEqual(
        (await store.webhooks.events(TEAM_A, 0, 1000)).slice(before).map((e) => e.lead?.id),
        ['while-disabled'],
        'the event log holds it, whatever the endpoints',
      );
      assert.equal(await delivered(), deliveredBefore, 'no delivery to a disabled endpoint');
      await call('PATCH', `${PATH}/${endpoints[0]!.id}`, keys.a!, { enabled: true });
      await load(store, [lead('after-enabling')]);
      assert.equal(await delivered(), deliveredBefore + 1, 'enabled again: the next lead is delivered');
      assert.equal((await call('PATCH', `${PATH}/${endpoints[0]!.id}`, keys.a!, {})).statusCode, 400);
    });

    it('rotation shows a new secret once; the old one keeps signing for the grace period', async () => {
      const [e] = (await call('GET', PATH, keys.a!)).json().data.endpoints as { id: string }[];
      const before = await store.webhooks.signingSecrets(e!.id);
      const t0 = Date.now();
      const res = await call('POST', `${PATH}/${e!.id}/rotate-secret`, keys.a!);
      assert.equal(res.statusCode, 200, res.body);
      const shown = res.json().data.secret as string;
      const after = await store.webhooks.signingSecrets(e!.id);
      assert.equal(new SecretSeal(SEAL_KEY).open(after!.current), shown);
      assert.equal(after!.previous, before!.current);
      const graceMs = 24 * 3_600_000;
      assert.ok(after!.previousUntil! >= t0 + graceMs && after!.previousUntil! <= Date.now() + graceMs);
    });

    it('deletes an endpoint: 204, then 404', async () => {
      const [e] = (await call('GET', PATH, keys.a!)).json().data.endpoints as { id: string }[];
      const res = await call('DELETE', `${PATH}/${e!.id}`, keys.a!);
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await call('GET', `${PATH}/${e!.id}`, keys.a!)).statusCode, 404);
      assert.equal((await call('DELETE', `${PATH}/${e!.id}`, keys.a!)).statusCode, 404);
    });
  });
}
