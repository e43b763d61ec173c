import { once } from 'node:events';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type AppDeps, buildApp } from './app.js';
import { type Config, defaultPublicUrl } from './config.js';
import { DeliveryLoop } from './delivery/loop.js';
import { V1NoticeLoop } from './delivery/v1-notice-loop.js';
import { listenMetrics, watchRetirement } from './http/metrics.js';
import { Metrics } from './metrics/metrics.js';
import { storeTracer, traceIdOrUuid } from './metrics/tracing.js';
import { RetentionSchedule } from './retention/schedule.js';
import { observeStore } from './storage/observed-store.js';
import { RedisRateLimiter } from './storage/redis-rate-limit.js';
import type { Store } from './store.js';

/** After the grace period, how long a signalled process waits for the store to close before it exits 1. */
const SHUTDOWN_STORE_MS = 10_000;

export interface RunningServer {
  app: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  address: string;
  /** The base of every link the service writes: LEADLINE_PUBLIC_URL, else on the port it got. */
  publicUrl: string;
  close(): Promise<void>;
}

/**
 * Listens and wires graceful shutdown: on SIGTERM/SIGINT stop accepting connections, let
 * in-flight requests (streams included) finish within the grace period, then close the store.
 */
export async function startServer(config: Config, store: Store, logger: Logger): Promise<RunningServer> {
  const redis =
    config.redisUrl === null
      ? null
      : new RedisRateLimiter({
          url: config.redisUrl,
          limit: config.rateLimit.limit,
          windowSeconds: config.rateLimit.windowSeconds,
          syncMs: config.rateLimit.syncMs,
          prefix: config.redisPrefix,
          logger,
        });
  // Bounded: a Redis that is down at start does not keep the service from starting (R14).
  await redis?.settled();
  // Metrics only when they can be read: a listener of their own, or a token (docs/operations.md).
  const metrics =
    config.metrics.port === null && config.metrics.token === null ? null : new Metrics(store.engine);
  if (metrics !== null) watchRetirement(metrics, store, config, Date.now);
  const metricsListener =
    metrics === null || config.metrics.port === null
      ? null
      : await listenMetrics(metrics, config.metrics.host, config.metrics.port);
  if (metricsListener !== null) logger.info(`metrics at ${metricsListener.address}/metrics`);
  const tracing = config.tracing.endpoint !== null;
  const tracer = tracing ? storeTracer() : null;
  const { app, address, publicUrl } = await listenApp({
    config,
    store:
      metrics === null && !tracing
        ? store
        : observeStore(store, { metrics, tracer, poolMax: config.pg.poolMax }),
    logger,
    ...(metrics === null ? {} : { metrics }),
    // With tracing the request id is the trace id: a log line leads to its trace (docs/operations.md).
    ...(tracing ? { requestId: traceIdOrUuid } : {}),
    ...(redis === null ? {} : { rateLimiter: redis, redisState: () => redis.state() }),
  });
  logger.info({ publicUrl }, `links point at ${publicUrl}`);
  // Webhooks: this instance delivers (docs/webhooks.md); on PostgreSQL every instance does.
  const delivery =
    metrics === null
      ? new DeliveryLoop(store, config.webhooks, logger)
      : new DeliveryLoop(
          store,
          config.webhooks,
          logger,
          undefined,
          undefined,
          metrics.deliveryObserver(),
          metrics.disabledObserver(),
        );
  if (metrics !== null) metrics.watchWebhooks(() => store.deliveries.backlog());
  delivery.start();
  // Retention policies (docs/privacy.md "Retention"): every instance runs the schedule; a lease
  // per team keeps two from erasing one team at once.
  const retention = new RetentionSchedule(store, config.retention, logger);
  retention.start();
  // The daily v1.usage notices (docs/webhooks.md "v1.usage"): every instance looks, one writes each.
  const notices = new V1NoticeLoop(store, config, logger);
  notices.start();
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const force = setTimeout(() => {
        logger.warn({ graceMs: config.shutdownGraceMs }, 'grace period over: closing remaining connections');
        app.server.closeAllConnections();
      }, config.shutdownGraceMs);
      force.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(force);
        await notices.stop();
        await delivery.stop();
        await retention.stop();
        await metricsListener?.close();
        await redis?.close();
        await store.close();
      }
    })();
    return closing;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      // Closing waits on the store (the usage ledger's last write, the pool's end): a store that
      // never answers must not keep a signalled process alive, holding its port.
      setTimeout(() => {
        logger.error(
          { waitedMs: config.shutdownGraceMs + SHUTDOWN_STORE_MS },
          'shutdown did not finish; exiting',
        );
        process.exit(1);
      }, config.shutdownGraceMs + SHUTDOWN_STORE_MS).unref();
      close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app, address, publicUrl, close };
}

/**
 * Connections the system may queue before the server accepts them (Node's default is 511; the
 * kernel caps it at net.core.somaxconn). A restart with thousands of waiting clients has them all
 * reconnect within seconds, and a connection dropped from a full queue waits for its client's
 * SYN retry, 1 s and then 3 s, 7 s (docs/operations.md "Waiting feeds").
 */
const LISTEN_BACKLOG = 4096;

/**
 * Builds the app and listens. The app writes its links (problem types, `Link` headers) with the
 * public URL, fixed when it is built; on port 0 without LEADLINE_PUBLIC_URL that URL needs the
 * port the system picks, so a free port is asked for first and the app built for it. Should
 * another process take it in between, the next attempt asks again.
 */
async function listenApp(
  deps: AppDeps & { logger: Logger },
): Promise<{ app: FastifyInstance; address: string; publicUrl: string }> {
  const { config } = deps;
  const pick = config.port === 0 && !config.publicUrlFromEnv;
  for (let attempt = 1; ; attempt++) {
    const port = pick ? await freePort(config.host) : config.port;
    const publicUrl = pick ? defaultPublicUrl(config.host, port) : config.publicUrl;
    const app = await buildApp({ ...deps, config: { ...config, port, publicUrl } });
    try {
      const address = await app.listen({ port, host: config.host, backlog: LISTEN_BACKLOG });
      return { app, address, publicUrl };
    } catch (err) {
      await app.close();
      const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!pick || !taken || attempt === 3) throw err;
      deps.logger.warn({ port }, 'the free port was taken before listening: picking another');
    }
  }
}

/** A port free on `host` now, as the system assigns port 0. */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  probe.listen({ port: 0, host });
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}
