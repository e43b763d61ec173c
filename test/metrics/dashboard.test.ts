import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { KEY_STATUSES } from '../../src/retirement/report.js';
import { dashboardQueries } from './dashboard.js';
import { PROMTOOL, prometheusPackageSkip } from './prometheus-package.js';

/**
 * ops/grafana/leadline.json: every query is valid PromQL (promtool checks each as a recording
 * rule), and the panels an operator needs are there. test/metrics/prometheus.test.ts runs every
 * query against a real Prometheus.
 */

describe('Grafana dashboard', () => {
  const { panels, queries } = dashboardQueries();

  test('every query parses (promtool check rules)', { skip: prometheusPackageSkip(PROMTOOL) }, () => {
    assert.ok(queries.length >= 20, `${queries.length} queries`);
    const dir = mkdtempSync(join(tmpdir(), 'leadline-dashboard-'));
    try {
      const rules = queries.map(
        (q, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(q.expr)}`,
      );
      writeFileSync(
        join(dir, 'rules.yml'),
        `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`,
      );
      const out = execFileSync(PROMTOOL, ['check', 'rules', join(dir, 'rules.yml')], { encoding: 'utf8' });
      assert.match(out, new RegExp(`SUCCESS: ${queries.length} rules found`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('traffic, latency, errors, the v1 drain, the store and limits have their panels', () => {
    const titles = panels.map((p) => p.title);
    for (const needed of [
      'Requests per second by route and status',
      'Server errors (5xx) ÷ all answers',
      'Latency p50 and p99 by route',
      'v1 calls per operation (answered)',
      'Keys by v1 status (last 30 days)',
      'Store call latency p99 by operation',
      'PostgreSQL pool: in use and waiting',
      'Read replica: state and lag',
      '429s by reason',
    ])
      assert.ok(titles.includes(needed), `no panel "${needed}"`);
    const drain = queries.find((q) => q.title === 'v1 calls per operation (answered)');
    assert.match(
      drain?.expr ?? '',
      /sum by \(operation\) \(rate\(leadline_v1_calls_total\{.*outcome="answered"\}/,
    );
  });

  test('keys by v1 status: every status, refused included, one series each, named in the description', () => {
    const panel = panels.find((p) => p.title === 'Keys by v1 status (last 30 days)');
    assert.deepEqual(
      panel?.targets?.map((t) => t.expr),
      ['max by (status) (leadline_v1_keys)'],
      'one series per status, whatever statuses the gauge has',
    );
    for (const status of KEY_STATUSES)
      assert.ok(panel?.description?.includes(status), `the description does not name ${status}`);
  });
});
