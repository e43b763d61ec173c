import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createKey } from '../../src/keys/create-key.js';
import { enginesUnderTest } from '../support/engines.js';
import { auth, makeApp } from '../support/helpers.js';
import { assertRateLimitFields } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, search, V2 } from './client.js';
import { buildSearchFixture, M, type SearchFixture, TEAM } from './search-fixture.js';

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  url: (leadId: string) => string;
  body?: unknown;
  allow: string;
  status: number;
}

/** One valid request per v2 operation, for the team admin. */
const ROUTES: Route[] = [
  {
    name: 'search',
    method: 'POST',
    url: () => `${V2}/search`,
    body: { filters: { teamId: TEAM } },
    allow: 'POST',
    status: 200,
  },
  { name: 'get', method: 'GET', url: (id) => `${V2}/${id}`, allow: 'GET, HEAD, PATCH', status: 200 },
  {
    name: 'update',
    method: 'PATCH',
    url: (id) => `${V2}/${id}`,
    body: { systemFields: { note: 'security probe' } },
    allow: 'GET, HEAD, PATCH',
    status: 200,
  },
  {
    name: 'duplicates',
    method: 'POST',
    url: () => `${V2}/duplicates`,
    body: {},
    allow: 'POST',
    status: 200,
  },
  { name: 'changes', method: 'GET', url: () => `${V2}/changes`, allow: 'GET, HEAD', status: 200 },
  {
    name: 'create',
    method: 'POST',
    url: () => V2,
    body: { leadSource: 'MANUAL', systemFields: { fullName: 'Security Probe' } },
    allow: 'POST',
    status: 201,
  },
  { name: 'me', method: 'GET', url: () => '/api/pub/v2/me', allow: 'GET, HEAD', status: 200 },
];

for (const engine of enginesUnderTest()) {
  describe(`v2 security: one suite for every operation [${engine}]`, () => {
    let fx: SearchFixture;
    let leadId: string;
    let revoked: string;
    let expired: string;
    before(async () => {
      fx = await buildSearchFixture(engine);
      leadId =
        (await search(fx.app, fx.key.admin, { filters: { teamId: TEAM }, limit: 1 })).leads[0]?.leadId ?? '';
      const r = await createKey(fx.store, { member: M.admin });
      await fx.store.keys.revoke(r.id, Date.now());
      revoked = r.key;
      // Made "ten seconds ago" to expire a second later: expired by the time it is used.
      const then = Date.now() - 10_000;
      expired = (await createKey(fx.store, { member: M.admin, expiresAt: then + 1000 }, then)).key;
    });
    after(async () => fx.cleanup());

    const send = (
      app: FastifyInstance,
      r: Route,
      headers: Record<string, string>,
      method: string = r.method,
    ) =>
      app.inject({
        method: method as 'GET',
        url: r.url(leadId),
        headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(r.body === undefined || method !== r.method ? {} : { payload: JSON.stringify(r.body) }),
      });

    for (const r of ROUTES) {
      describe(r.name, () => {
        it('answers a valid key, with the RateLimit fields', async () => {
          const res = await send(fx.app, r, auth(fx.key.admin));
          assertV2Ok(res, r.status);
          assertRateLimitFields(res);
        });

        it('401 with WWW-Authenticate for no key, a malformed, unknown, revoked or expired key', async () => {
          const cases: Record<string, string>[] = [
            {},
            { authorization: 'Bearer nope' },
            { authorization: `Bearer ${fx.key.admin.slice(0, -1)}${fx.key.admin.endsWith('A') ? 'B' : 'A'}` },
            auth(revoked),
            auth(expired),
          ];
          for (const headers of cases) assertV2Problem(await send(fx.app, r, headers), 401, 'unauthorized');
        });

        it('401 for a key in the query string, even with a valid header', async () => {
          const res = await fx.app.inject({
            method: r.method,
            url: `${r.url(leadId)}?api_key=${fx.key.admin}`,
            headers: { ...auth(fx.key.admin), 'content-type': 'application/json' },
            ...(r.body === undefined ? {} : { payload: JSON.stringify(r.body) }),
          });
          assertV2Problem(res, 401, 'unauthorized');
        });

        it('405 with Allow for other methods', async () => {
          const others = ['PUT', 'DELETE', 'PATCH', 'POST', 'GET'].filter(
            (m) => !r.allow.split(', ').includes(m),
          );
          for (const method of others) {
            const res: LightMyRequestResponse = await send(fx.app, r, auth(fx.key.admin), method);
            assertV2Problem(res, 405, 'method-not-allowed');
            assert.equal(res.headers.allow, r.allow);
          }
        });
      });
    }

    it('one quota per key across v1 and v2: the request over it is a 429 with Retry-After', async () => {
      const app = await makeApp(fx.store, { LEADLINE_RATE_LIMIT: '3' });
      try {
        const v1 = await app.inject({
          method: 'GET',
          url: '/api/pub/leads/getLastLead',
          headers: auth(fx.key.mia),
        });
        assert.equal(v1.statusCode, 200);
        for (let i = 0; i < 2; i++) {
          assertV2Ok(await app.inject({ method: 'GET', url: `${V2}/changes`, headers: auth(fx.key.mia) }));
        }
        const res = await app.inject({ method: 'GET', url: `${V2}/changes`, headers: auth(fx.key.mia) });
        assertV2Problem(res, 429, 'rate-limited');
        assert.match(String(res.headers['retry-after']), /^[0-9]+$/);
        assertRateLimitFields(res);
      } finally {
        await app.close();
      }
    });
  });
}
