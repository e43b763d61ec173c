import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { RedisRateLimiter } from './storage/redis-rate-limit.js';
import type { Store } from './storage/store.js';

export interface RunningServer {
  app: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  address: string;
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
          prefix: config.redisPrefix,
          logger,
        });
  // Bounded: a Redis that is down at start does not keep the service from starting (R14).
  await redis?.settled();
  const app = await buildApp({
    config,
    store,
    logger,
    ...(redis === null ? {} : { rateLimiter: redis, redisState: () => redis.state() }),
  });
  const address = await app.listen({ port: config.port, host: config.host });
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
        await redis?.close();
        await store.close();
      }
    })();
    return closing;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app, address, close };
}
