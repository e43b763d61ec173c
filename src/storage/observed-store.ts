import type { Span, Tracer } from '@opentelemetry/api';
import type { Metrics } from '../metrics/metrics.js';
import type { CounterChild, HistogramChild } from '../metrics/series.js';
import { endStoreSpan, startStoreSpan } from '../metrics/tracing.js';
import type { SharedCounters } from '../rate-limit/shared-counters.js';
import type { Store } from '../store.js';
import { PostgresStore } from './postgres/store.js';

/**
 * The store as the server uses it when metrics or tracing are on: every call of the lead,
 * directory, key and retirement stores (and the rate limiter's, whose PostgreSQL counters are a
 * query a request) is timed into `leadline_store_query_duration_seconds{operation, engine}`
 * and/or traced as a span named `operation`: `<store>.<method>` (`leads.lastOfMember`).
 * Everything else is the store itself. The domain knows nothing of this: it is handed a `Store`
 * like any other.
 */
export function observeStore(
  store: Store,
  { metrics, tracer, poolMax }: { metrics: Metrics | null; tracer: Tracer | null; poolMax: number | null },
): Store {
  const engine = store.engine;
  let inFlight = 0;
  const track = { start: () => inFlight++, end: () => inFlight-- };
  const timed = <T extends object>(group: string, target: T): T => {
    const observed = Object.create(target) as T;
    for (const name of methodNames(target)) {
      const op = `${group}.${name}`;
      const original = (target as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
      const o: Observer = {
        series:
          metrics === null
            ? null
            : { time: metrics.storeQueries.child(op, engine), errors: metrics.storeErrors.child(op, engine) },
        span: tracer === null ? null : () => startStoreSpan(tracer, op, engine),
        track,
      };
      (observed as Record<string, unknown>)[name] = wrap(target, original, o, engine);
    }
    return observed;
  };
  const parts: PropertyDescriptorMap = {};
  for (const name of PARTS) {
    const part = (store as unknown as Record<string, unknown>)[name];
    if (part !== null && typeof part === 'object') parts[name] = { value: timed(name, part) };
  }
  const observed: Store = Object.create(store, {
    ...parts,
    // Not timed (a watch lasts as long as a request waits), and made on the store itself, so
    // the store's close() ends it — not on this wrapper, where a lazy getter would put it.
    feed: { get: () => store.feed },
    // The embedded store has no shared counters (its one instance counts in memory): nothing to time.
    rateCounters: {
      value: (windowSeconds: number): SharedCounters | null => {
        const counters = store.rateCounters(windowSeconds);
        return counters === null ? null : timed('rateLimit', counters);
      },
    },
  });
  metrics?.watchStore({
    engine,
    poolMax: engine === 'postgres' ? poolMax : null,
    inFlight: () => inFlight,
    replicaState: () => store.replicaState(),
    replicaLagSeconds: () => (store instanceof PostgresStore ? store.replicaLagSeconds() : null),
    ping: () => store.ping(),
  });
  return observed;
}

/** The stores' parts whose calls are timed (a part an engine lacks is skipped). */
const PARTS = [
  'leads',
  'directory',
  'keys',
  'retirement',
  'webhooks',
  'console',
  'deliveries',
  'erasures',
  'retention',
  'audit',
];

/** The methods an implementation offers (its class's and its ancestors'), constructor aside. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (
    let p = Object.getPrototypeOf(target);
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    for (const name of Object.getOwnPropertyNames(p)) {
      if (name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(p, name)?.value === 'function')
        names.add(name);
    }
  }
  return [...names];
}

interface Observer {
  series: { time: HistogramChild; errors: CounterChild } | null;
  span: (() => Span) | null;
  track: { start(): void; end(): void };
}

/**
 * Promises are timed to their settling; async iterables (range reads) batch by batch, each
 * `next()` a query. Anything else passes through untimed. The caller gets the store's own
 * promise back, never one chained onto it: timing adds no step to the request's path.
 */
function wrap(
  target: object,
  original: (...args: unknown[]) => unknown,
  o: Observer,
  engine: string,
): (...args: unknown[]) => unknown {
  if (engine === 'sqlite' && o.span === null && o.series !== null)
    return wrapSync(target, original, o.series);
  // Async generators (range reads) are timed per batch; a span for making one would be noise.
  const spans = original.constructor.name === 'AsyncGeneratorFunction' ? null : o.span;
  return (...args: unknown[]) => {
    const t0 = performance.now();
    const span = spans?.() ?? null;
    const result = original.apply(target, args);
    if (result instanceof Promise) {
      o.track.start();
      result.then(
        () => settled(o, t0, span),
        (err: unknown) => settled(o, t0, span, err ?? new Error('rejected')),
      );
      return result;
    }
    if (span !== null) endStoreSpan(span);
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result)
      return timedIterable(result as AsyncIterable<unknown>, o);
    return result;
  };
}

/**
 * The hot path on the embedded store (metrics on, tracing off): better-sqlite3 answers inside
 * the call, so the call's own time is the query's — no closure, no wait for the promise; a
 * failure is counted by a handler made once.
 */
function wrapSync(
  target: object,
  original: (...args: unknown[]) => unknown,
  series: NonNullable<Observer['series']>,
): (...args: unknown[]) => unknown {
  const failed = () => {
    series.errors.value++;
  };
  const o: Observer = { series, span: null, track: { start() {}, end() {} } };
  return (...args: unknown[]) => {
    const t0 = performance.now();
    const result = original.apply(target, args);
    if (result instanceof Promise) {
      series.time.observe((performance.now() - t0) / 1000);
      result.catch(failed);
      return result;
    }
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result)
      return timedIterable(result as AsyncIterable<unknown>, o);
    return result;
  };
}

function settled(o: Observer, t0: number, span: Span | null, err?: unknown): void {
  o.track.end();
  if (o.series !== null) {
    if (err !== undefined) o.series.errors.value++;
    o.series.time.observe((performance.now() - t0) / 1000);
  }
  if (span !== null) endStoreSpan(span, err);
}

function timedIterable<T>(source: AsyncIterable<T>, o: Observer): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      return {
        async next() {
          const t0 = performance.now();
          const span = o.span?.() ?? null;
          o.track.start();
          let failure: unknown;
          try {
            return await it.next();
          } catch (err) {
            failure = err ?? new Error('rejected');
            throw err;
          } finally {
            settled(o, t0, span, failure);
          }
        },
        async return(value?: unknown) {
          return (await it.return?.(value)) ?? { done: true as const, value: undefined as T };
        },
      };
    },
  };
}
