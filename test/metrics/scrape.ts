import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { observeStore } from '../../src/storage/observed-store.js';
import type { Store } from '../../src/store.js';
import { testConfig } from '../support/helpers.js';

export const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

/** One sample of a scrape: metric name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (what the tests need of it: samples, escaped label values). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    out.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return out;
}

/** The sum of the samples named `name` whose labels include `labels`; 0 when none. */
export function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hits.reduce((n, s) => n + s.value, 0);
}

/** The app as `leadline serve` builds it with metrics on: the store observed, /metrics behind the token. */
export async function metricsApp(
  store: Store,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; metrics: Metrics }> {
  const config = testConfig({ LEADLINE_METRICS_TOKEN: METRICS_TOKEN, ...env });
  const metrics = new Metrics(store.engine);
  const app = await buildApp({
    config,
    store: observeStore(store, { metrics, tracer: null, poolMax: config.pg.poolMax }),
    metrics,
  });
  return { app, metrics };
}

export async function scrape(app: FastifyInstance): Promise<Sample[]> {
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}`);
  return parseExposition(res.body);
}
