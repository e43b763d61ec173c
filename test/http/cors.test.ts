import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, makeApp } from '../support/helpers.js';
import { M, searchRecords, TEAM } from '../v2/search-fixture.js';

const APP = 'https://app.example.test';
const OTHER = 'https://evil.example.test';
const V1_URL = '/api/pub/leads/getLastLeadTeam';
const SEARCH = '/api/pub/v2/leads/search';
const EXPOSED =
  'RateLimit, RateLimit-Policy, Retry-After, ETag, Deprecation, Sunset, Link, Warning, X-Request-Id';

const corsHeaders = (res: LightMyRequestResponse): string[] =>
  Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));

function preflight(app: FastifyInstance, url: string, origin: string | null, method = 'GET') {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      ...(origin === null ? {} : { origin }),
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });
}

/** What the service answers an OPTIONS with no CORS in play: v1 and v2 paths 405 with Allow, others 404. */
async function assertOptionsAsWithoutCors(app: FastifyInstance, origin: string | null): Promise<void> {
  for (const [url, status, allow] of [
    [V1_URL, 405, 'GET, HEAD'],
    [SEARCH, 405, 'POST'],
    ['/api/admin/v1/report', 404, undefined],
    ['/healthz', 404, undefined],
  ] as const) {
    const res = await preflight(app, url, origin);
    assert.equal(res.statusCode, status, `OPTIONS ${url} from ${origin}`);
    assert.equal(res.headers.allow, allow, url);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json\b/, url);
    assert.deepEqual(corsHeaders(res), [], `OPTIONS ${url} from ${origin}`);
  }
}

for (const engine of enginesUnderTest()) {
  describe(`R19: CORS [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let key = '';
    before(async () => {
      const made = await makeEngineStore(engine);
      ({ store, cleanup } = made);
      await load(store, searchRecords());
      key = await keyFor(store, { member: M.admin, legacyV1: true });
    });
    after(async () => cleanup());

    describe('off by default', () => {
      let app: FastifyInstance;
      before(async () => {
        app = await makeApp(store);
      });
      after(async () => app.close());

      it('answers preflights as before (405/404) and sends no Access-Control-* header', async () => {
        await assertOptionsAsWithoutCors(app, APP);
        const res = await app.inject({ url: V1_URL, headers: { ...auth(key), origin: APP } });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(corsHeaders(res), []);
        assert.equal(res.headers.vary, undefined);
      });
    });

    describe('LEADLINE_CORS_ORIGINS lists an origin', () => {
      let app: FastifyInstance;
      before(async () => {
        app = await makeApp(store, { LEADLINE_CORS_ORIGINS: `${APP}, http://localhost:5173` });
      });
      after(async () => app.close());

      it('answers its preflight: the methods, the three request headers, no credentials', async () => {
        for (const [url, method] of [
          [V1_URL, 'GET'],
          [SEARCH, 'POST'],
          ['/api/pub/v2/leads', 'POST'],
          ['/api/pub/v2/leads/changes', 'GET'],
        ] as const) {
          const res = await preflight(app, url, APP, method);
          assert.equal(res.statusCode, 204, `${url}: ${res.body}`);
          assert.equal(res.headers['access-control-allow-origin'], APP);
          assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST');
          assert.equal(
            res.headers['access-control-allow-headers'],
            'Authorization, Content-Type, Idempotency-Key',
          );
          assert.equal(res.headers['access-control-max-age'], '600');
          assert.equal(res.headers['access-control-allow-credentials'], undefined);
          assert.match(String(res.headers.vary), /\bOrigin\b/);
        }
        const local = await preflight(app, SEARCH, 'http://localhost:5173', 'POST');
        assert.equal(local.headers['access-control-allow-origin'], 'http://localhost:5173');
      });

      it('lets its calls through with the headers a client reads exposed, errors included', async () => {
        const ok = await app.inject({ url: V1_URL, headers: { ...auth(key), origin: APP } });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['access-control-allow-origin'], APP);
        assert.equal(ok.headers['access-control-expose-headers'], EXPOSED);
        assert.equal(ok.headers['access-control-allow-credentials'], undefined);
        const search = await app.inject({
          method: 'POST',
          url: SEARCH,
          headers: { ...auth(key), origin: APP, 'content-type': 'application/json' },
          payload: JSON.stringify({ filters: { teamId: TEAM } }),
        });
        assert.equal(search.statusCode, 200, search.body);
        assert.equal(search.headers['access-control-allow-origin'], APP);
        const refused = await app.inject({ url: V1_URL, headers: { origin: APP } });
        assert.equal(refused.statusCode, 401);
        assert.equal(refused.headers['access-control-allow-origin'], APP, 'the browser may read the problem');
      });

      it('gives any other origin nothing: no Access-Control-* header, OPTIONS answered as before', async () => {
        await assertOptionsAsWithoutCors(app, OTHER);
        await assertOptionsAsWithoutCors(app, `${APP}.evil.test`);
        await assertOptionsAsWithoutCors(app, null);
        const res = await app.inject({ url: V1_URL, headers: { ...auth(key), origin: OTHER } });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(corsHeaders(res), []);
        // An OPTIONS from a listed origin that is no preflight is v1's 405, as before.
        const plain = await app.inject({ method: 'OPTIONS', url: V1_URL, headers: { origin: APP } });
        assert.equal(plain.statusCode, 405);
        assert.deepEqual(corsHeaders(plain), []);
      });
    });
  });
}
