import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { PROBLEMS } from '../../src/http/problem.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, makeApp } from '../support/helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';

/** The console's sign-in page (any link shows it; only its POST checks the link). */
const SIGN_IN = `/console/sign-in/${'0'.repeat(64)}`;

/**
 * Every HTML page the service serves without a session: the console's sign-in page, each doc,
 * each problem type (the console's other pages: test/console/, test/browser/console.browser.ts).
 */
const PAGES = [
  SIGN_IN,
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `/docs/${f.slice(0, -3)}`),
  ...Object.keys(PROBLEMS).map((code) => `/problems/${code}`),
];

function directives(res: LightMyRequestResponse): Map<string, string> {
  const csp = String(res.headers['content-security-policy'] ?? '');
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== '')
      .map(([name, ...values]) => [name as string, values.join(' ')]),
  );
}

/**
 * R17: a strict CSP (no inline anything), no framing, no Referer to another site. The docs and
 * problem pages send none at all; the console's send one to its own origin only, so a browser
 * names that origin on their forms' POSTs, which refuse `Origin: null` (issue 36).
 */
function assertPageHeaders(res: LightMyRequestResponse, url: string): void {
  const d = directives(res);
  assert.equal(d.get('default-src'), "'none'", url);
  assert.equal(d.get('script-src'), "'self'", url);
  assert.equal(d.get('style-src'), "'self'", url);
  assert.equal(d.get('frame-ancestors'), "'none'", url);
  assert.equal(d.get('base-uri'), "'none'", url);
  assert.equal(d.get('form-action'), "'self'", url);
  for (const [name, value] of d) {
    assert.doesNotMatch(value, /unsafe-|\*|data:|https?:/, `${url}: ${name} ${value}`);
  }
  const referrer = url.startsWith('/console/') ? 'same-origin' : 'no-referrer';
  assert.equal(res.headers['referrer-policy'], referrer, url);
  assert.equal(res.headers['x-frame-options'], 'DENY', url);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
}

/** What the policy would block: inline script or style, event handler attributes, javascript: URLs. */
function assertNothingInline(html: string, url: string): void {
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    assert.match(m[1] ?? '', /\ssrc="\/[^"]+"/, `${url}: a script without src`);
    assert.equal(m[2], '', `${url}: inline script`);
  }
  assert.doesNotMatch(html, /<style\b/i, `${url}: inline <style>`);
  assert.doesNotMatch(html, /<[a-z][^>]*\sstyle\s*=/i, `${url}: style attribute`);
  assert.doesNotMatch(html, /<[a-z][^>]*\son[a-z]+\s*=/i, `${url}: event handler attribute`);
  // In an attribute: the docs may name `javascript:` in their prose (code, escaped).
  assert.doesNotMatch(html, /<[a-z][^>]*=\s*["']?\s*javascript:/i, `${url}: javascript: URL`);
}

for (const engine of enginesUnderTest()) {
  describe(`R17: page headers [${engine}]`, () => {
    let app: FastifyInstance;
    let cleanup: () => Promise<void>;
    let key = '';
    before(async () => {
      const made = await makeEngineStore(engine);
      cleanup = made.cleanup;
      await load(made.store, searchRecords());
      key = await keyFor(made.store, { member: M.admin, legacyV1: true });
      app = await makeApp(made.store);
    });
    after(async () => {
      await app.close();
      await cleanup();
    });

    it(`every page (${PAGES.length}) has the CSP, frame and referrer headers and nothing inline`, async () => {
      assert.ok(PAGES.includes('/docs/v2') && PAGES.includes('/problems/unauthorized'));
      for (const url of PAGES) {
        const res = await app.inject({ url, headers: { accept: 'text/html' } });
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', url);
        assertPageHeaders(res, url);
        assertNothingInline(res.body, url);
      }
    });

    it('the docs, problem pages and /admin send no Referer; the console only to itself (issue 36)', async () => {
      for (const url of ['/docs/v2', '/problems/unauthorized', '/admin', '/assets/leadline.css']) {
        assert.equal((await app.inject({ url })).headers['referrer-policy'], 'no-referrer', url);
      }
      for (const url of [SIGN_IN, '/console/keys', '/console/assets/console.js']) {
        assert.equal((await app.inject({ url })).headers['referrer-policy'], 'same-origin', url);
      }
    });

    it("the pages' script and stylesheet are the service's own files, served with their types", async () => {
      const signIn = (await app.inject({ url: SIGN_IN })).body;
      const doc = (await app.inject({ url: '/docs/v2' })).body;
      const refs = [...`${signIn}${doc}`.matchAll(/(?:src|href)="(\/(?:console\/)?assets\/[^"]+)"/g)].map(
        (m) => m[1],
      );
      assert.deepEqual([...new Set(refs)].sort(), [
        '/assets/leadline.css',
        '/console/assets/console.css',
        '/console/assets/console.js',
      ]);
      const js = await app.inject({ url: '/console/assets/console.js' });
      assert.equal(js.statusCode, 200);
      assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.doesNotMatch(js.body, /innerHTML/, 'values are inserted as text');
      const css = await app.inject({ url: '/assets/leadline.css' });
      assert.equal(css.statusCode, 200);
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      assertPageHeaders(js, '/console/assets/console.js');
      assert.equal(
        (await app.inject({ url: '/assets/admin.js' })).statusCode,
        404,
        'the key-pasting page is gone',
      );
      assert.equal((await app.inject({ url: '/assets/../package.json' })).statusCode, 404);
    });

    it('API answers keep their headers: no page policy on JSON (v1 wire unchanged)', async () => {
      for (const res of [
        await app.inject({ url: '/api/pub/leads/getLastLeadTeam', headers: auth(key) }),
        await app.inject({ url: '/api/pub/v2/leads/changes', headers: auth(key) }),
        await app.inject({ url: '/api/admin/v1/report', headers: auth(key) }),
        await app.inject({ url: '/api/pub/leads/getLastLead' }),
        await app.inject({ url: '/healthz' }),
      ]) {
        assert.ok(res.statusCode < 500, res.body);
        for (const h of ['content-security-policy', 'referrer-policy', 'x-frame-options']) {
          assert.equal(res.headers[h], undefined, `${h} on ${res.raw.req.url}`);
        }
      }
    });
  });
}
