import type { RateLimiter } from '../domain/rate-limit.js';
import type { Store } from '../domain/store.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CounterChild, HistogramChild } from '../metrics/series.js';
import { PostgresStore } from './postgres/postgres-store.js';

/**
 * The store as the server uses it when metrics are on: every call of the lead, directory, key
 * and retirement stores (and the rate limiter's, whose PostgreSQL counters are a query a
 * request) is timed into `leadline_store_query_duration_seconds{operation, engine}`, where
 * `operation` is `<store>.<method>` (`leads.lastOfMember`). Everything else is the store itself.
 * The domain knows nothing of this: it is handed a `Store` like any other.
 */
export function observeStore(store: Store, metrics: Metrics, poolMax: number | null): Store {
  const engine = store.engine;
  let inFlight = 0;
  const track = { start: () => inFlight++, end: () => inFlight-- };
  const timed = <T extends object>(group: string, target: T): T => {
    const observed = Object.create(target) as T;
    for (const name of methodNames(target)) {
      const op = `${group}.${name}`;
      const original = (target as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
      const series = {
        time: metrics.storeQueries.child(op, engine),
        errors: metrics.storeErrors.child(op, engine),
      };
      (observed as Record<string, unknown>)[name] = wrap(target, original, series, track);
    }
    return observed;
  };
  const observed: Store = Object.create(store, {
    leads: { value: timed('leads', store.leads) },
    directory: { value: timed('directory', store.directory) },
    keys: { value: timed('keys', store.keys) },
    retirement: { value: timed('retirement', store.retirement) },
    createRateLimiter: {
      value: (limit: number, windowSeconds: number): RateLimiter =>
        timed('rateLimit', store.createRateLimiter(limit, windowSeconds)),
    },
  });
  metrics.watchStore({
    engine,
    poolMax: engine === 'postgres' ? poolMax : null,
    inFlight: () => inFlight,
    replicaState: () => store.replicaState(),
    replicaLagSeconds: () => (store instanceof PostgresStore ? store.replicaLagSeconds() : null),
    ping: () => store.ping(),
  });
  return observed;
}

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

type Series = { time: HistogramChild; errors: CounterChild };
type Track = { start(): void; end(): void };

/**
 * Promises are timed to their settling; async iterables (range reads) batch by batch, each
 * `next()` a query. Anything else passes through untimed.
 */
function wrap(
  target: object,
  original: (...args: unknown[]) => unknown,
  s: Series,
  track: Track,
): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const t0 = performance.now();
    const result = original.apply(target, args);
    if (result instanceof Promise) {
      track.start();
      return result.then(
        (value) => {
          track.end();
          s.time.observe((performance.now() - t0) / 1000);
          return value;
        },
        (err: unknown) => {
          track.end();
          s.errors.value++;
          s.time.observe((performance.now() - t0) / 1000);
          throw err;
        },
      );
    }
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result)
      return timedIterable(result as AsyncIterable<unknown>, s, track);
    return result;
  };
}

function timedIterable<T>(source: AsyncIterable<T>, s: Series, track: Track): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      return {
        async next() {
          const t0 = performance.now();
          track.start();
          try {
            return await it.next();
          } catch (err) {
            s.errors.value++;
            throw err;
          } finally {
            track.end();
            s.time.observe((performance.now() - t0) / 1000);
          }
        },
        async return(value?: unknown) {
          return (await it.return?.(value)) ?? { done: true as const, value: undefined as T };
        },
      };
    },
  };
}
