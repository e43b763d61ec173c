import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import { LATENCY_BUCKETS } from '../../src/metrics/metrics.js';
import { enginesUnderTest } from '../support/engines.js';
import { auth, makeApp, testConfig } from '../support/helpers.js';
import { BERLIN, buildFixture, type Fixture, LA } from '../v1/fixtures.js';
import { METRICS_TOKEN, metricsApp, sampleSum, scrape } from './scrape.js';

const V1 = '/api/pub/leads/';
const REQUESTS = 'leadline_http_requests_total';

for (const engine of enginesUnderTest()) {
  describe(`metrics: what a scrape says about the requests sent (${engine})`, () => {
    let fx: Fixture;
    before(async () => {
      fx = await buildFixture(engine);
    });
    after(() => fx.cleanup());

    test('requests by route pattern, method and status; v1 calls by operation and outcome; 401s; store queries', async () => {
      const { app } = await metricsApp(fx.store);
      const key = fx.key(BERLIN.teamAdmin);
      for (let i = 0; i < 7; i++)
        assert.equal((await app.inject({ url: `${V1}getLastLead`, headers: auth(key) })).statusCode, 200);
      const unknown = `Bearer ${key.slice(0, -2)}zz`;
      for (let i = 0; i < 3; i++)
        assert.equal(
          (await app.inject({ url: `${V1}getLastLead`, headers: { authorization: unknown } })).statusCode,
          401,
        );
      // A path holding an e-mail address under the v1 prefix, and one outside any route.
      assert.equal((await app.inject({ url: `${V1}ana@acme.test`, headers: auth(key) })).statusCode, 404);
      assert.equal((await app.inject({ url: '/nothing/here/ana@acme.test' })).statusCode, 404);
      const s = await scrape(app);
      assert.equal(sampleSum(s, REQUESTS, { route: `${V1}getLastLead`, method: 'GET', status: '200' }), 7);
      assert.equal(sampleSum(s, REQUESTS, { route: `${V1}getLastLead`, method: 'GET', status: '401' }), 3);
      assert.equal(sampleSum(s, REQUESTS, { route: `${V1}*`, method: 'GET', status: '404' }), 1);
      assert.equal(sampleSum(s, REQUESTS, { route: 'unmatched', method: 'GET', status: '404' }), 1);
      const durations = s.filter(
        (x) =>
          x.name === 'leadline_http_request_duration_seconds_count' &&
          x.labels.route === `${V1}getLastLead` &&
          x.labels.status === '200',
      );
      assert.equal(durations[0]?.value, 7);
      const buckets = s.filter(
        (x) =>
          x.name === 'leadline_http_request_duration_seconds_bucket' &&
          x.labels.route === `${V1}getLastLead` &&
          x.labels.status === '200',
      );
      assert.deepEqual(
        buckets.map((b) => b.labels.le),
        [...LATENCY_BUCKETS.map(String), '+Inf'],
      );
      assert.equal(buckets[0]?.labels.le, '0.0001', 'the first bucket is 100 µs');
      assert.equal(
        sampleSum(s, 'leadline_v1_calls_total', { operation: 'getLastLead', outcome: 'answered' }),
        7,
      );
      assert.equal(
        sampleSum(s, 'leadline_v1_calls_total', { operation: 'getLastLead', outcome: 'refused' }),
        3,
      );
      assert.equal(sampleSum(s, 'leadline_v1_calls_total', { operation: 'other', outcome: 'refused' }), 1);
      // Every v1 call, refused ones too, with the sunset: none set here.
      assert.equal(
        sampleSum(s, 'leadline_v1_deprecated_calls_total', { operation: 'getLastLead', sunset: 'none' }),
        10,
      );
      assert.equal(sampleSum(s, 'leadline_v1_deprecated_calls_total'), 11);
      assert.equal(sampleSum(s, 'leadline_auth_failures_total'), 3);
      assert.equal(
        sampleSum(s, 'leadline_store_query_duration_seconds_count', {
          operation: 'leads.lastOfMember',
          engine,
        }),
        7,
      );
      // The 3 altered keys fail their checksum: refused before the store is asked.
      assert.equal(
        sampleSum(s, 'leadline_store_query_duration_seconds_count', {
          operation: 'keys.findByDisplay',
          engine,
        }),
        7,
      );
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      assert.equal(sampleSum(s, 'leadline_build_info', { version: pkg.version, engine }), 1);
      assert.equal(sampleSum(s, 'leadline_store_up', { engine }), 1);
      assert.ok(
        s.some((x) => x.name === 'process_cpu_user_seconds_total'),
        'default process metrics',
      );
      if (engine === 'postgres') assert.equal(sampleSum(s, 'leadline_store_pool_max', { engine }), 10);
      await app.close();
    });

    test('retirement outcomes: frozen-out, sunset; refusals by reason: key quota, auth throttle', async () => {
      const frozenKey = (await createKey(fx.store, { member: LA.member })).key; // no legacy grant
      const quota = await metricsApp(fx.store, { LEADLINE_RATE_LIMIT: '2' });
      const legacy = fx.key(LA.teamAdmin);
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await quota.app.inject({ url: `${V1}getLastLeadTeam`, headers: auth(legacy) })).statusCode,
        );
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.equal(
        (await quota.app.inject({ url: `${V1}getLastLead`, headers: auth(frozenKey) })).statusCode,
        403,
      );
      let s = await scrape(quota.app);
      assert.equal(sampleSum(s, 'leadline_rate_limit_refusals_total', { reason: 'key-quota' }), 1);
      assert.equal(
        sampleSum(s, 'leadline_v1_calls_total', { operation: 'getLastLeadTeam', outcome: 'refused' }),
        1,
      );
      assert.equal(
        sampleSum(s, 'leadline_v1_calls_total', { operation: 'getLastLead', outcome: 'frozen-out' }),
        1,
      );
      await quota.app.close();

      const sunset = await metricsApp(fx.store, {
        LEADLINE_AUTH_FAILURE_LIMIT: '1',
        LEADLINE_V1_SUNSET_AT: '2026-01-02T00:00:00Z',
      });
      assert.equal(
        (await sunset.app.inject({ url: `${V1}getLeadsTimeRange?start=0`, headers: auth(legacy) }))
          .statusCode,
        410,
      );
      const bad = { authorization: 'Bearer llk_notakeyatall_0000000000000000000000' };
      const throttled = [];
      for (let i = 0; i < 3; i++)
        throttled.push(
          (await sunset.app.inject({ url: '/api/pub/v2/leads/changes', headers: bad })).statusCode,
        );
      assert.equal(throttled.filter((c) => c === 429).length, 2, `statuses ${throttled}`);
      s = await scrape(sunset.app);
      assert.equal(
        sampleSum(s, 'leadline_v1_calls_total', { operation: 'getLeadsTimeRange', outcome: 'sunset' }),
        1,
      );
      assert.equal(
        sampleSum(s, 'leadline_v1_deprecated_calls_total', {
          operation: 'getLeadsTimeRange',
          sunset: '2026-01-02',
        }),
        1,
      );
      assert.equal(sampleSum(s, 'leadline_v1_deprecated_calls_total', { sunset: 'none' }), 0);
      assert.equal(sampleSum(s, 'leadline_rate_limit_refusals_total', { reason: 'auth-throttle' }), 2);
      assert.equal(sampleSum(s, 'leadline_auth_failures_total'), 1);
      await sunset.app.close();
    });

    test('/metrics: only with the token; absent when metrics are off', async () => {
      const { app } = await metricsApp(fx.store);
      const none = await app.inject({ url: '/metrics' });
      assert.equal(none.statusCode, 401);
      assert.match(String(none.headers['content-type']), /^application\/problem\+json/);
      const wrong = await app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}x` },
      });
      assert.equal(wrong.statusCode, 401);
      const ok = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(ok.statusCode, 200);
      assert.match(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      await app.close();
      const off = await makeApp(fx.store);
      assert.equal(
        (await off.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))
          .statusCode,
        404,
      );
      await off.close();
      // A token on its own does not expose anything unless the server was built with metrics.
      const noMetrics = await buildApp({
        config: testConfig({ LEADLINE_METRICS_TOKEN: METRICS_TOKEN }),
        store: fx.store,
      });
      assert.equal(
        (await noMetrics.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))
          .statusCode,
        404,
      );
      await noMetrics.close();
    });
  });
}

describe('metrics configuration', () => {
  test('off unless a port or a token is set; a short token is refused', () => {
    assert.deepEqual(testConfig().metrics, { port: null, host: '127.0.0.1', token: null });
    assert.equal(testConfig({ LEADLINE_METRICS_PORT: '0' }).metrics.port, 0);
    assert.throws(() => testConfig({ LEADLINE_METRICS_TOKEN: 'short' }), /LEADLINE_METRICS_TOKEN/);
    assert.throws(() => testConfig({ LEADLINE_METRICS_PORT: '70000' }), /LEADLINE_METRICS_PORT/);
  });
  test('tracing: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; a URL is required', () => {
    assert.deepEqual(testConfig().tracing, { endpoint: null, serviceName: 'leadline' });
    assert.equal(
      testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing.endpoint,
      'http://collector:4318',
    );
    assert.throws(
      () => testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
