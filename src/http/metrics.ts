import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CounterChild, HistogramChild } from '../metrics/series.js';
import { KEY_STATUSES, V1_OPERATION_NAMES, v1Report } from '../retirement/report.js';
import { AppError, type ErrorCode } from '../shared/errors.js';
import type { Store } from '../store.js';
import { type RequestHooks, routeOf } from './request-hooks.js';
import { routeSchema } from './route-schema.js';
import { V1_PREFIX } from './v1/deprecation.js';

/** How a v1 call ended, as `leadline_v1_calls_total` counts it. */
const V1_OUTCOMES: Partial<Record<ErrorCode, string>> = {
  'v1-closed-to-new-integrations': 'frozen-out',
  'v1-brownout': 'brownout',
  'v1-sunset': 'sunset',
};
const REFUSAL_REASONS: Partial<Record<ErrorCode, string>> = {
  'rate-limited': 'key-quota',
  'auth-throttled': 'auth-throttle',
};

interface Answer {
  count: CounterChild;
  time: HistogramChild;
}

/** The series of one route pattern, made on its first request and kept: labels are never built per request. */
class RouteSeries {
  private readonly answers = new Map<string, Map<number, Answer>>();
  private readonly v1 = new Map<string, CounterChild>();
  /** Every v1 call of the route, with the sunset (`leadline_v1_deprecated_calls_total`); null: not v1. */
  readonly deprecated: CounterChild | null;

  constructor(
    private readonly metrics: Metrics,
    private readonly route: string,
    /** The v1 operation this route is (`other` for the prefix's catch-all); null: not v1. */
    readonly v1Operation: string | null,
    sunset: string,
  ) {
    this.deprecated = v1Operation === null ? null : metrics.v1DeprecatedCalls.child(v1Operation, sunset);
  }

  answer(method: string, status: number): Answer {
    let byStatus = this.answers.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.answers.set(method, byStatus);
    }
    let a = byStatus.get(status);
    if (a === undefined) {
      const labels = [this.route, method, String(status)];
      a = {
        count: this.metrics.httpRequests.child(...labels),
        time: this.metrics.httpDuration.child(...labels),
      };
      byStatus.set(status, a);
    }
    return a;
  }

  v1Call(outcome: string): CounterChild {
    let c = this.v1.get(outcome);
    if (c === undefined) {
      c = this.metrics.v1Calls.child(this.v1Operation ?? 'other', outcome);
      this.v1.set(outcome, c);
    }
    return c;
  }
}

/**
 * Records every answered request: by route pattern (never the path as sent — it can hold a
 * key, an e-mail address, anything), method and status; v1 calls by operation and outcome;
 * 429s by reason; 401s. Synchronous, no allocation once a route's series exist.
 */
export function recordHttpMetrics(hooks: RequestHooks, metrics: Metrics, sunsetAt: number | null): void {
  const sunset = sunsetLabel(sunsetAt);
  const routes = new Map<string | undefined, RouteSeries>();
  const seriesOf = (url: string | undefined): RouteSeries => {
    let r = routes.get(url);
    if (r === undefined) {
      const route = url ?? 'unmatched';
      const op = url?.startsWith(V1_PREFIX) === true ? url.slice(V1_PREFIX.length) : null;
      const v1 = op === null ? null : (V1_OPERATION_NAMES as readonly string[]).includes(op) ? op : 'other';
      r = new RouteSeries(metrics, route, v1, sunset);
      routes.set(url, r);
    }
    return r;
  };
  const refusals = new Map(
    Object.entries(REFUSAL_REASONS).map(([code, reason]) => [code, metrics.rateLimitRefusals.child(reason)]),
  );
  hooks.observe((request, reply) => {
    const series = seriesOf(routeOf(request));
    const a = series.answer(request.method, reply.statusCode);
    a.count.value++;
    a.time.observe(reply.elapsedTime / 1000);
    const problem = reply.problem;
    if (series.v1Operation !== null) {
      series.v1Call(problem === null ? 'answered' : (V1_OUTCOMES[problem] ?? 'refused')).value++;
      if (series.deprecated !== null) series.deprecated.value++;
    }
    if (problem === 'unauthorized') metrics.authFailures.value++;
    else if (problem !== null) {
      const refusal = refusals.get(problem);
      if (refusal !== undefined) refusal.value++;
    }
  });
}

/** The `sunset` label: the sunset's UTC date (`2027-03-01`), `none` while none is set. */
export function sunsetLabel(sunsetAt: number | null): string {
  return sunsetAt === null ? 'none' : new Date(sunsetAt).toISOString().slice(0, 10);
}

/** The v1 drain as the store sees it: keys by `leadline v1 report` status, and the sunset time. */
export function watchRetirement(metrics: Metrics, store: Store, config: Config, now: () => number): void {
  metrics.watchCounts(
    'leadline_v1_keys',
    'Keys by v1 status over the last 30 days, as `leadline v1 report` counts them (store-wide: every instance reports the same).',
    'status',
    async () => {
      const report = v1Report(await store.keys.list(), await store.retirement.usage(null), 30, now());
      // Every status from the first scrape, at 0 when no key has it: alerts and panels see the series.
      const counts = Object.fromEntries(KEY_STATUSES.map((s) => [s, 0])) as Record<string, number>;
      for (const k of report.keys) counts[k.status]! += 1;
      return counts;
    },
    60_000,
  );
  metrics.constant(
    'leadline_v1_sunset_timestamp_seconds',
    'The configured v1 sunset (LEADLINE_V1_SUNSET_AT), Unix seconds; absent when none is set.',
    config.v1.sunsetAt === null ? null : config.v1.sunsetAt / 1000,
  );
}

/** `GET /metrics` on the API port, for `Authorization: Bearer <LEADLINE_METRICS_TOKEN>` only. */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  const expected = Buffer.from(`Bearer ${token}`);
  app.get('/metrics', { schema: routeSchema('metrics') }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new AppError(
        'unauthorized',
        'The metrics need "Authorization: Bearer <LEADLINE_METRICS_TOKEN>".',
      );
    return reply
      .header('cache-control', 'no-store')
      .type(metrics.contentType)
      .send(await metrics.text());
  });
}

/** `/metrics` on a listener of its own (LEADLINE_METRICS_PORT), nothing else on it. */
export async function listenMetrics(
  metrics: Metrics,
  host: string,
  port: number,
): Promise<{ address: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only /metrics here\n');
      return;
    }
    metrics.text().then(
      (text) =>
        res.writeHead(200, { 'content-type': metrics.contentType }).end(req.method === 'HEAD' ? '' : text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    address: `http://${shown}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
