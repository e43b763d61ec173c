import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { keyFor, load } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { BERLIN, fixtureRecords } from '../v1/fixtures.js';
import { dashboardQueries } from './dashboard.js';
import { PROMETHEUS, prometheusPackageSkip } from './prometheus-package.js';
import { METRICS_TOKEN } from './scrape.js';

/**
 * A real Prometheus (Debian's package; .ci/run installs it) scrapes two leadline instances on
 * one PostgreSQL store — one on its metrics port, one on its API port with the token — while the
 * test sends them requests; then Prometheus's HTTP API must give back the counts sent, per route
 * and status, summed over both instances.
 */
const V1 = '/api/pub/leads/';

/** A port free now (Prometheus needs one on its command line; it cannot report one it picked). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

async function send(base: string, n: number, path: string, authorization?: string): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(
        `${base}${path}`,
        authorization === undefined ? {} : { headers: { authorization } },
      );
      await res.arrayBuffer();
    }),
  );
}

describe('a real Prometheus scrapes two instances on PostgreSQL', {
  skip: testDatabaseUrl() === null ? 'no LEADLINE_TEST_DATABASE_URL' : prometheusPackageSkip(PROMETHEUS),
}, () => {
  let cleanup: () => Promise<void>;
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;
  let prometheus: ChildProcess | null = null;
  let api = '';
  const dir = mkdtempSync(join(tmpdir(), 'leadline-prometheus-'));

  before(async () => {
    const made = await makeEngineStore('postgres');
    cleanup = made.cleanup;
    await load(made.store, fixtureRecords());
    key = await keyFor(made.store, { member: BERLIN.teamAdmin, legacyV1: true });
    const env = { LEADLINE_RATE_LIMIT: '1000000', LEADLINE_AUTH_FAILURE_LIMIT: '1000000' };
    a = await startServerProcess(storeArgs(made.location), { ...env, LEADLINE_METRICS_PORT: '0' });
    b = await startServerProcess(storeArgs(made.location), { ...env, LEADLINE_METRICS_TOKEN: METRICS_TOKEN });
    const metricsA = a.logs.map((l) => /metrics at (http:\/\/[^"]+)\/metrics/.exec(l)?.[1]).find(Boolean);
    assert.ok(metricsA, 'instance A logs where its metrics are');
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    writeFileSync(join(dir, 'token'), METRICS_TOKEN);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: {scrape_interval: 1s, scrape_timeout: 1s}',
        'scrape_configs:',
        '  - job_name: leadline-port',
        `    static_configs: [{targets: ['${new URL(metricsA).host}']}]`,
        '  - job_name: leadline-token',
        `    authorization: {credentials_file: '${join(dir, 'token')}'}`,
        `    static_configs: [{targets: ['${new URL(b.url).host}']}]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
  });

  after(async () => {
    if (prometheus !== null && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await once(prometheus, 'exit');
    }
    await stopAll();
    await cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = async (q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await res.json()) as {
      status: string;
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    assert.equal(body.status, 'success', q);
    return body.data.result;
  };
  /** Polls until `check` passes (Prometheus scrapes every second) or 60 s have gone by. */
  const eventually = async (check: () => Promise<void>): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  test('both targets up, then the request counts sent, per route and status, summed over both', async () => {
    await eventually(async () => {
      const up = await query('up');
      assert.equal(up.length, 2);
      assert.ok(
        up.every((s) => s.value[1] === '1'),
        JSON.stringify(up),
      );
    });
    const bad = `Bearer ${key.slice(0, -2)}zz`;
    // Under generated load, different counts on each instance.
    await Promise.all([
      send(a.url, 40, `${V1}getLastLead`, `Bearer ${key}`),
      send(b.url, 25, `${V1}getLastLead`, `Bearer ${key}`),
      send(a.url, 7, `${V1}getLastLead`, bad),
      send(b.url, 4, `${V1}getLastLead`, bad),
      send(a.url, 6, `${V1}getLeadsTimeRangeForTeam?start=0`, `Bearer ${key}`),
      send(b.url, 9, '/api/pub/v2/leads/changes?limit=5', `Bearer ${key}`),
      send(a.url, 3, '/no/such/path/ana@acme.test'),
      send(b.url, 2, '/no/such/path'),
    ]);
    const expected: Record<string, number> = {
      [`${V1}getLastLead 200`]: 65,
      [`${V1}getLastLead 401`]: 11,
      [`${V1}getLeadsTimeRangeForTeam 200`]: 6,
      '/api/pub/v2/leads/changes 200': 9,
      'unmatched 404': 5,
    };
    await eventually(async () => {
      const rows = await query('sum by (route, status) (leadline_http_requests_total{route!="/metrics"})');
      const got = Object.fromEntries(
        rows.map((r) => [`${r.metric.route} ${r.metric.status}`, Number(r.value[1])]),
      );
      assert.deepEqual(got, expected);
    });
    const byInstance = await query(
      `sum by (job) (leadline_http_requests_total{route="${V1}getLastLead",status="200"})`,
    );
    assert.deepEqual(Object.fromEntries(byInstance.map((r) => [r.metric.job, Number(r.value[1])])), {
      'leadline-port': 40,
      'leadline-token': 25,
    });
    const v1 = await query('sum by (operation, outcome) (leadline_v1_calls_total)');
    const calls = Object.fromEntries(
      v1.map((r) => [`${r.metric.operation} ${r.metric.outcome}`, Number(r.value[1])]),
    );
    assert.deepEqual(calls, {
      'getLastLead answered': 65,
      'getLastLead refused': 11,
      'getLeadsTimeRangeForTeam answered': 6,
    });
    const info = await query('count by (engine) (leadline_build_info)');
    assert.deepEqual(
      info.map((r) => [r.metric.engine, r.value[1]]),
      [['postgres', '2']],
    );
    const p99 = await query(
      `histogram_quantile(0.99, sum by (le) (leadline_http_request_duration_seconds_bucket{route="${V1}getLastLead"}))`,
    );
    assert.ok(Number(p99[0]?.value[1]) > 0 && Number(p99[0]?.value[1]) < 10, `p99 ${JSON.stringify(p99)}`);
  });

  test('every query of the Grafana dashboard runs, and the v1 drain shows the calls sent', async () => {
    for (const q of dashboardQueries().queries) await query(q.expr);
    const drain = dashboardQueries().queries.find((q) => q.title === 'v1 calls per operation (answered)');
    // More calls, on series that now exist (a rate needs two samples of a series).
    await send(a.url, 5, `${V1}getLeadsTimeRangeForTeam?start=0`, `Bearer ${key}`);
    await send(b.url, 5, `${V1}getLastLead`, `Bearer ${key}`);
    await eventually(async () => {
      const rows = await query(drain!.expr.replace('[1m]', '[5m]'));
      assert.deepEqual(rows.map((r) => r.metric.operation).sort(), [
        'getLastLead',
        'getLeadsTimeRangeForTeam',
      ]);
      assert.ok(
        rows.every((r) => Number(r.value[1]) > 0),
        JSON.stringify(rows),
      );
    });
  });
});
