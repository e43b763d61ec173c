import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { KEY_IN_URL } from '../../src/http/key-in-url.js';
import { createLogger } from '../../src/logger.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, testConfig } from '../support/helpers.js';
import { assertV2Problem } from '../v2/client.js';
import { M, searchRecords } from '../v2/search-fixture.js';

/** Every log line the app writes, as text: the test looks for the key in all of them. */
class LogSink extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
}

/** A key in the path on every kind of route: v1 and v2 operations, admin, pages, 404s, spellings. */
function pathsWith(key: string): string[] {
  const encoded = `%6C${key.slice(1)}`; // `%6Clk_…`: the router decodes it to the key
  return [
    `/api/pub/leads/getLastLead/${key}`,
    `/api/pub/leads/${key}`,
    `//api/pub/leads/getLastLeadTeam/${key}`,
    `/api/pub/v2/leads/${key}`,
    `/api/pub/v2/leads/search/${key}`,
    `/api/admin/v1/report/${key}`,
    `/docs/${key}`,
    `/problems/${key}`,
    `/admin/${key}`,
    `/${key}`,
    `/no/such/${key}/path?x=1`,
    `/api/pub/v2/leads/${encoded}`,
    `/docs/${encoded}`,
  ];
}

for (const engine of enginesUnderTest()) {
  describe(`R18: a key in the path is refused and flagged as leaked [${engine}]`, () => {
    let cleanup: () => Promise<void>;
    let store: Awaited<ReturnType<typeof makeEngineStore>>['store'];
    let key = '';
    before(async () => {
      const made = await makeEngineStore(engine);
      cleanup = made.cleanup;
      store = made.store;
      await load(store, searchRecords());
      key = await keyFor(store, { member: M.admin, legacyV1: true });
    });
    after(async () => cleanup());

    async function appWithLog(env: Record<string, string> = {}): Promise<[FastifyInstance, LogSink]> {
      const sink = new LogSink();
      const app = await buildApp({ config: testConfig(env), store, logger: createLogger('info', sink) });
      return [app, sink];
    }

    it('answers 401 with the leaked wording on every route, method and spelling, even with a valid header', async () => {
      const [app, sink] = await appWithLog();
      try {
        // The same key in the header is served: the refusal is the path's doing.
        assert.equal(
          (await app.inject({ url: '/api/pub/v2/leads/changes', headers: auth(key) })).statusCode,
          200,
        );
        for (const url of pathsWith(key)) {
          for (const method of ['GET', 'POST', 'OPTIONS'] as const) {
            const res = await app.inject({ method, url, headers: auth(key) });
            assert.equal(res.statusCode, 401, `${method} ${url}`);
            assert.match(String(res.headers['content-type']), /^application\/problem\+json\b/);
            const p = JSON.parse(res.body) as { type: string; detail: string };
            assert.equal(p.type, 'http://127.0.0.1:3000/problems/unauthorized');
            assert.equal(p.detail, KEY_IN_URL, `${method} ${url}`);
            assert.ok(!res.body.includes(key.slice(4)), `${method} ${url}: the key is not quoted back`);
            assert.ok(
              !JSON.stringify(res.headers).includes(key.slice(4)),
              `${method} ${url}: nor in a header`,
            );
          }
        }
        // Under v1's prefix the refusal still carries v1's deprecation signals (C6).
        const v1 = await app.inject({ url: `/api/pub/leads/getLastLead/${key}` });
        assert.match(String(v1.headers.deprecation), /^@\d+$/);
      } finally {
        await app.close();
      }
      const requests = sink.lines.filter((l) => l.includes('"incoming request"'));
      assert.ok(requests.length >= pathsWith(key).length * 3, 'the requests were logged');
      for (const line of sink.lines)
        assert.ok(!line.includes(key.slice(4)), `the key in a log line: ${line}`);
    });

    it('paths that only look alike are served as before', async () => {
      const [app] = await appWithLog();
      try {
        assert.equal((await app.inject({ url: '/docs/v2' })).statusCode, 200);
        assertV2Problem(
          await app.inject({ url: '/api/pub/v2/leads/llk', headers: auth(key) }),
          404,
          'not-found',
        );
      } finally {
        await app.close();
      }
    });

    it("after v1's sunset a v1 path is gone (410) whatever the key, as with a key in the query (C7)", async () => {
      const [app, sink] = await appWithLog({ LEADLINE_V1_SUNSET_AT: '2026-01-02T00:00:00Z' });
      try {
        for (const url of [`/api/pub/leads/getLastLead/${key}`, `/api/pub/leads/getLastLead?key=${key}`]) {
          const res = await app.inject({ url, headers: auth(key) });
          assert.equal(res.statusCode, 410, url);
          assert.ok(!res.body.includes(key.slice(4)));
        }
        // Elsewhere the refusal stands.
        assertV2Problem(await app.inject({ url: `/api/pub/v2/leads/${key}` }), 401, 'unauthorized');
      } finally {
        await app.close();
      }
      for (const line of sink.lines)
        assert.ok(!line.includes(key.slice(4)), `the key in a log line: ${line}`);
    });
  });
}
