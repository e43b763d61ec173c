import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { watchRetirement } from '../../src/http/metrics.js';
import { makeStore, testConfig } from '../support/helpers.js';
import { PROMTOOL, prometheusPackageSkip } from './prometheus-package.js';
import { METRICS_TOKEN, metricsApp } from './scrape.js';

/**
 * The alert rules (ops/prometheus/alerts.yml) pass `promtool check rules` and their unit tests
 * (`promtool test rules`, Debian's prometheus package), and the dashboard and the rules name only
 * metrics leadline serves.
 */
const OPS = fileURLToPath(new URL('../../ops/', import.meta.url));

const promtool = (...args: string[]): string =>
  execFileSync(PROMTOOL, args, { cwd: `${OPS}prometheus`, encoding: 'utf8' });

describe('alert rules', { skip: prometheusPackageSkip(PROMTOOL) }, () => {
  test('promtool check rules: valid', () => {
    assert.match(promtool('check', 'rules', 'alerts.yml'), /SUCCESS: 9 rules found/);
  });
  test('promtool test rules: each alert fires when it should and only then', () => {
    assert.match(promtool('test', 'rules', 'alerts.test.yml'), /SUCCESS/);
  });
});

describe('the rules and the dashboard name only metrics leadline serves', () => {
  let served: Set<string>;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeStore();
    cleanup = made.cleanup;
    const { app, metrics } = await metricsApp(made.store, { LEADLINE_V1_SUNSET_AT: '2030-01-01T00:00:00Z' });
    metrics.watchWebhooks(() => made.store.deliveries.backlog());
    watchRetirement(
      metrics,
      made.store,
      testConfig({ LEADLINE_V1_SUNSET_AT: '2030-01-01T00:00:00Z' }),
      Date.now,
    );
    const text = (
      await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).body;
    served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    await app.close();
  });
  after(() => cleanup());

  for (const file of ['prometheus/alerts.yml', 'grafana/leadline.json']) {
    test(file, () => {
      const names = new Set(
        [...readFileSync(`${OPS}${file}`, 'utf8').matchAll(/\bleadline_[a-z0-9_]+/g)].map((m) =>
          m[0].replace(/_(bucket|sum|count)$/, ''),
        ),
      );
      assert.ok(names.size > 5, `${file} names ${names.size} metrics`);
      for (const name of names) assert.ok(served.has(name), `${file}: ${name} is not served`);
    });
  }
});
