import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { EngineName } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';
import { B, DAY, EMPTY, type Fixture, importMore, lead } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import {
  assertConsent,
  assertDeprecation,
  assertLeads,
  assertProblem,
  assertRateLimitFields,
  call,
  type OpName,
  V1,
} from './http-assert.js';

export interface CommonSuite {
  /** The store engine the suite's fixtures run on. */
  engine: EngineName;
  op: OpName;
  /** Caller with access to the operation. */
  memberId: number;
  /** A valid query (with its `?`, or empty) that answers at least one lead. */
  query: string;
  /** A member whose new lead becomes the answer of a last-lead operation (ETag ops 1–3). */
  collector?: number;
}

const SUNSET_ENV = { LEADLINE_V1_SUNSET_AT: '2099-01-01T00:00:00Z' };
const SUNSET_HTTP = 'Thu, 01 Jan 2099 00:00:00 GMT';

/**
 * What every v1 operation shares (C3 unknown parameters, C4 headers and bytes, ETag for ops 1–3,
 * C5 methods, HEAD and rate limits, C6 deprecation signals), registered in the calling file.
 */
export function commonV1Suite({ engine, op, memberId, query, collector }: CommonSuite): void {
  const path = `${V1}${op}${query}`;
  let fx: Fixture;
  let app: FastifyInstance;
  let key: string;
  v1Harness(engine, (h) => {
    ({ fx, app } = h);
    key = fx.key(memberId);
  });

  describe('C4: every 200 is a JSON array, private, no-cache, same bytes for the same request', () => {
    test('Content-Type application/json; charset=utf-8, Cache-Control private, no-cache', async () => {
      const leads = assertLeads(await call(app, path, key));
      assert.ok(leads.length > 0, 'the suite query answers leads');
      assertConsent(fx.model, leads);
    });
    test('identical requests over unchanged data return identical bytes', async () => {
      const a = await call(app, path, key);
      const b = await call(app, path, key);
      assert.equal(a.statusCode, 200);
      assert.ok(a.rawPayload.length > 2);
      assert.ok(a.rawPayload.equals(b.rawPayload));
      assert.equal(a.headers.etag, b.headers.etag);
    });
  });

  describe('C3: query parameters the operation does not define are ignored', () => {
    test('extra and foreign parameters give the very same answer', async () => {
      const extra = ['foo=bar', 'limit=1', 'sort=desc', 'page=2', 'empty=', 'flag'];
      if (!query.includes('start')) extra.push('start=abc', 'end=-1');
      if (!query.includes('subTeamId')) extra.push('subTeamId=abc');
      const plain = await call(app, path, key);
      const noisy = await call(app, `${path}${query === '' ? '?' : '&'}${extra.join('&')}`, key);
      assertLeads(noisy);
      assert.equal(noisy.body, plain.body);
    });
  });

  if (collector !== undefined) {
    describe('C4: ETag, and 304 with no body on a matching If-None-Match', () => {
      const cases: [string, (etag: string) => string][] = [
        ['the same tag', (e) => e],
        ['the weak form W/<tag>', (e) => `W/${e}`],
        ['*', () => '*'],
        ['a list holding the tag', (e) => `"nope", ${e}, "other"`],
      ];
      for (const [label, header] of cases) {
        test(`If-None-Match: ${label} → 304`, async () => {
          const first = await call(app, path, key);
          const etag = String(first.headers.etag);
          assert.match(etag, /^"[^"]+"$/, 'a strong entity tag');
          const res = await call(app, path, key, { headers: { 'if-none-match': header(etag) } });
          assert.equal(res.statusCode, 304);
          assert.equal(res.body, '');
          assert.equal(res.headers.etag, etag);
          assertDeprecation(res);
        });
      }
      test('a non-matching If-None-Match → 200 with the body', async () => {
        const first = await call(app, path, key);
        for (const inm of ['"something-else"', `W/"x${String(first.headers.etag).slice(1)}`]) {
          const res = await call(app, path, key, { headers: { 'if-none-match': inm } });
          assertLeads(res);
          assert.equal(res.body, first.body);
        }
      });
      test('HEAD with a matching If-None-Match → 304', async () => {
        const first = await call(app, path, key);
        const res = await call(app, path, key, {
          method: 'HEAD',
          headers: { 'if-none-match': String(first.headers.etag) },
        });
        assert.equal(res.statusCode, 304);
        assert.equal(res.body, '');
      });
      test('a new lead changes the ETag; the old tag then gets 200', async () => {
        await withOwnFixture(engine, async (own, ownApp) => {
          const k = own.key(memberId);
          const before = await call(ownApp, path, k);
          await importMore(own, [lead(collector, 'etag-new', B + 100 * DAY, { time: 'new', isLead: true })]);
          const after = await call(ownApp, path, k, {
            headers: { 'if-none-match': String(before.headers.etag) },
          });
          const leads = assertLeads(after);
          assert.equal(leads[0]?.id, 'etag-new');
          assert.notEqual(after.headers.etag, before.headers.etag);
        });
      });
    });
  }

  describe('C5: methods other than GET and HEAD → 405 with Allow: GET, HEAD', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      test(method, async () => {
        const res = await call(app, path, key, { method });
        assertProblem(res, 405, 'method-not-allowed', fx.model);
        assert.equal(res.headers.allow, 'GET, HEAD');
      });
    }
    test('POST with an invalid JSON body → still 405', async () => {
      const res = await call(app, path, key, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        payload: '{"start": 1,,',
      });
      assertProblem(res, 405, 'method-not-allowed', fx.model);
      assert.equal(res.headers.allow, 'GET, HEAD');
    });
  });

  describe('C5: HEAD → 200 with no body', () => {
    test('status, headers of the GET, empty body', async () => {
      const get = await call(app, path, key);
      const head = await call(app, path, key, { method: 'HEAD' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(head.headers['cache-control'], 'private, no-cache');
      assert.equal(head.headers.etag, get.headers.etag);
      assertDeprecation(head);
    });
  });

  describe('C5: RateLimit / RateLimit-Policy on every answer, 429 with Retry-After past the limit', () => {
    test('fields on a 200', async () => {
      assertRateLimitFields(await call(app, path, key));
    });
    test('limit 3: three answers, then 429 with Retry-After; other keys unaffected', async () => {
      // A one-day window: the four requests cannot straddle a window boundary in practice.
      const limited = await makeApp(fx.store, {
        LEADLINE_RATE_LIMIT: '3',
        LEADLINE_RATE_WINDOW_SECONDS: '86400',
      });
      try {
        for (const remaining of [2, 1, 0]) {
          const res = await call(limited, path, key);
          assertLeads(res);
          assert.equal(res.headers['ratelimit-policy'], '"default";q=3;w=86400');
          assert.match(String(res.headers.ratelimit), new RegExp(`^"default";r=${remaining};t=\\d+$`));
        }
        const res = await call(limited, path, key);
        assertProblem(res, 429, 'rate-limited', fx.model);
        assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
        assertRateLimitFields(res);
        assert.match(String(res.headers.ratelimit), /;r=0;/);
        const other = await call(limited, `${V1}getLastLead`, fx.key(EMPTY.teamAdmin));
        assert.equal(other.statusCode, 200);
      } finally {
        await limited.close();
      }
    });
  });

  describe('C6: Deprecation and Link on every answer; Sunset only when configured', () => {
    test('no sunset configured: Deprecation @<seconds>, Link deprecation + successor-version, no Sunset', async () => {
      const res = await call(app, path, key);
      assert.equal(res.statusCode, 200);
      assertDeprecation(res);
    });
    test('LEADLINE_V1_SUNSET_AT set: Sunset (IMF-fixdate) and rel="sunset", on 200 and on errors', async () => {
      const withSunset = await makeApp(fx.store, SUNSET_ENV);
      try {
        const ok = await call(withSunset, path, key);
        assert.equal(ok.statusCode, 200);
        assertDeprecation(ok, SUNSET_HTTP);
        const unauthorized = await call(withSunset, path);
        assert.equal(unauthorized.statusCode, 401);
        assertDeprecation(unauthorized, SUNSET_HTTP);
      } finally {
        await withSunset.close();
      }
    });
    test('Deprecation carries the configured deprecation time', async () => {
      const configured = await makeApp(fx.store, { LEADLINE_V1_DEPRECATED_AT: '2025-06-01T00:00:00Z' });
      try {
        const res = await call(configured, path, key);
        assert.equal(res.headers.deprecation, `@${Date.UTC(2025, 5, 1) / 1000}`);
      } finally {
        await configured.close();
      }
    });
  });
}
