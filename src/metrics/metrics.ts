import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type CounterChild, FastCounter, FastHistogram, type HistogramChild } from './series.js';
import {
  readOrNull,
  type StoreProbe,
  type WebhookBacklog,
  watchStore,
  watchWebhooks,
} from './store-gauges.js';

/**
 * The one owner of the metrics registry (docs/operations.md lists every metric). The rest of
 * the code records through the series named here, holding their children; nothing else imports
 * prom-client. One registry per instance of this class, so several apps in one process (tests)
 * never share counts.
 */

/** Seconds. Sub-millisecond at the bottom: a v1 getLastLead is answered in ~100 µs. */
export const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

export type { ReplicaState, StoreProbe, WebhookBacklog } from './store-gauges.js';

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new FastCounter(
    'leadline_http_requests_total',
    'HTTP requests answered, by route pattern, method and status.',
    ['route', 'method', 'status'],
  ).register(this.registry);
  readonly httpDuration = new FastHistogram(
    'leadline_http_request_duration_seconds',
    'Time from the request to its answer, by route pattern, method and status.',
    ['route', 'method', 'status'],
    LATENCY_BUCKETS,
  ).register(this.registry);
  readonly v1Calls = new FastCounter(
    'leadline_v1_calls_total',
    'v1 calls by operation and outcome: answered, frozen-out, brownout, sunset, refused.',
    ['operation', 'outcome'],
  ).register(this.registry);
  /**
   * Every v1 call (refused ones too), by operation, labelled with the UTC date of the sunset that
   * removes v1 (`none` while none is set), as Kubernetes labels deprecated calls with the release
   * that removes them: one sunset per process, so no more series than `leadline_v1_calls_total`.
   */
  readonly v1DeprecatedCalls = new FastCounter(
    'leadline_v1_deprecated_calls_total',
    'v1 calls by operation, labelled with the date of the v1 sunset (LEADLINE_V1_SUNSET_AT, UTC), or none.',
    ['operation', 'sunset'],
  ).register(this.registry);
  readonly rateLimitRefusals = new FastCounter(
    'leadline_rate_limit_refusals_total',
    'Requests refused with 429, by reason: key-quota or auth-throttle.',
    ['reason'],
  ).register(this.registry);
  readonly authFailures: CounterChild = new FastCounter(
    'leadline_auth_failures_total',
    'Requests answered 401: no key, a malformed, unknown, revoked or expired key, or a key in the URL.',
    [],
  )
    .register(this.registry)
    .child();
  readonly storeQueries = new FastHistogram(
    'leadline_store_query_duration_seconds',
    'Store operations by operation and engine: time from the call to its result.',
    ['operation', 'engine'],
    LATENCY_BUCKETS,
  ).register(this.registry);
  readonly storeErrors = new FastCounter(
    'leadline_store_errors_total',
    'Store operations that failed, by operation and engine.',
    ['operation', 'engine'],
  ).register(this.registry);

  readonly webhookDeliveries = new FastCounter(
    'leadline_webhook_deliveries_total',
    'Webhook delivery attempts by outcome: delivered, retry, failed, failed-and-disable.',
    ['outcome'],
  ).register(this.registry);
  readonly webhookEndpointsDisabled = new FastCounter(
    'leadline_webhook_endpoints_disabled_total',
    'Webhook endpoints leadline disabled, by reason: gone (answered 410 Gone), failing (failed too long).',
    ['reason'],
  ).register(this.registry);
  readonly webhookLatency = new FastHistogram(
    'leadline_webhook_delivery_duration_seconds',
    'Time from sending a webhook delivery attempt to its answer (or its failure), by outcome.',
    ['outcome'],
    LATENCY_BUCKETS,
  ).register(this.registry);

  constructor(engine: string) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'leadline_build_info',
      help: 'Always 1; the labels name the running version, the store engine and Node.',
      labelNames: ['version', 'engine', 'node'],
      registers: [this.registry],
    }).set({ version: VERSION, engine, node: process.version }, 1);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Pool, replica and reachability gauges, read from the store at each scrape (store-gauges.ts). */
  watchStore(probe: StoreProbe): void {
    watchStore(this.registry, probe);
  }

  /** What the delivery loop calls after each attempt: counts it by outcome and times it. */
  deliveryObserver(): (outcome: string, result: { latencyMs: number }) => void {
    const byOutcome = new Map<string, { count: CounterChild; time: HistogramChild }>();
    return (outcome, result) => {
      let s = byOutcome.get(outcome);
      if (s === undefined) {
        s = { count: this.webhookDeliveries.child(outcome), time: this.webhookLatency.child(outcome) };
        byOutcome.set(outcome, s);
      }
      s.count.value++;
      s.time.observe(result.latencyMs / 1000);
    };
  }

  /** What the delivery loop calls for each endpoint it disabled: counts it by reason. */
  disabledObserver(): (d: { cause: string }) => void {
    return (d) => {
      this.webhookEndpointsDisabled.child(d.cause).value++;
    };
  }

  /** The webhook backlog, read from the store at each scrape (store-gauges.ts). */
  watchWebhooks(read: () => Promise<WebhookBacklog>): void {
    watchWebhooks(this.registry, read);
  }

  /** A gauge set at each scrape from `read` (cached for `cacheMs`), one series per key of its result. */
  watchCounts(
    name: string,
    help: string,
    label: string,
    read: () => Promise<Record<string, number>>,
    cacheMs: number,
  ): void {
    let cached: { at: number; counts: Record<string, number> } | null = null;
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        if (cached === null || Date.now() - cached.at > cacheMs) {
          const counts = await readOrNull(read);
          if (counts === null) return this.reset(); // unknown while the store is away: no series
          cached = { at: Date.now(), counts };
        }
        for (const [value, n] of Object.entries(cached.counts)) this.set({ [label]: value }, n);
      },
    });
  }

  /** A gauge with one constant value (a configured time, say); not exported when null. */
  constant(name: string, help: string, value: number | null): void {
    if (value !== null) new Gauge({ name, help, registers: [this.registry] }).set(value);
  }
}

/** package.json's version: two levels up from src/metrics/ and from dist/metrics/ alike. */
const VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();
