import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type HostLookup, systemLookup } from './delivery/destination.js';
import { adminRoutes } from './http/admin.js';
import { clientErrorHandler, throttleAuthFailures } from './http/client-limits.js';
import { consoleRoutes } from './http/console/routes.js';
import { allowCors } from './http/cors.js';
import { countUsage } from './http/count-usage.js';
import { refuseKeysInPath } from './http/key-in-url.js';
import { metricsRoute, recordHttpMetrics } from './http/metrics.js';
import { describeRoutes } from './http/openapi.js';
import { pageRoutes } from './http/pages.js';
import { decorateProblems, errorHandler, STORE_RETRY_AFTER_SECONDS, sendProblem } from './http/problem.js';
import { RequestHooks } from './http/request-hooks.js';
import { requestLogger } from './http/request-logger.js';
import { hasDotSegment } from './http/request-path.js';
import { routeSchema, validateFromRouteSchemas } from './http/route-schema.js';
import { BrownoutCache } from './http/v1/brownout-cache.js';
import { deprecationHeaders, V1_PREFIX } from './http/v1/deprecation.js';
import { v1Routes } from './http/v1/routes.js';
import { v2Routes } from './http/v2/routes.js';
import { webhookRoutes } from './http/v2/webhook-routes.js';
import type { Metrics } from './metrics/metrics.js';
import type { RateLimiter } from './rate-limit/fixed-window.js';
import { rateLimiterFor } from './rate-limit/shared-counters.js';
import { UsageLedger } from './retirement/usage.js';
import { AppError } from './shared/errors.js';
import type { Store } from './store.js';

export interface AppDeps {
  config: Config;
  store: Store;
  logger?: Logger;
  rateLimiter?: RateLimiter;
  /** Where the rate-limit counters stand when REDIS_URL is set; `/readyz` reports it (R14). */
  redisState?: () => 'up' | 'down';
  now?: () => number;
  /** How webhook URLs' host names are resolved (tests give names their own answers). */
  hostLookup?: HostLookup;
  /** Records requests, v1 calls and refusals (docs/operations.md); absent: no metrics. */
  metrics?: Metrics;
  /** Makes each request's id (logs, `X-Request-Id`, problem `instance`); default a random UUID. */
  requestId?: () => string;
}

/** Builds the HTTP app: no environment, no listening. Tests call `inject()` on it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store } = deps;
  const app = Fastify({
    ...(deps.logger === undefined
      ? { logger: false }
      : { loggerInstance: deps.logger, childLoggerFactory: requestLogger }),
    genReqId: deps.requestId ?? (() => randomUUID()),
    requestIdHeader: false,
    // Behind a load balancer: whose X-Forwarded-For names the client (docs/scaling.md).
    // A hop count as a function: Fastify's types leave out the number form its runtime takes.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: 64 * 1024,
    // Idle keep-alive connections outlive a load balancer's idle timeout; slow clients (R2) are cut
    // off at the header and request deadlines, checked every second rather than Node's every 30 s.
    keepAliveTimeout: config.timeouts.keepAliveMs,
    requestTimeout: config.timeouts.requestMs,
    http: {
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      connectionsCheckingInterval: 1_000,
    },
    // While draining (SIGTERM), a request that still arrives on an open keep-alive connection is
    // served, with Connection: close, rather than refused with Fastify's bare 503 (R5).
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(config.publicUrl),
    // A URL Fastify cannot decode, or a path parameter over its length limit: answered before any
    // hook runs, so the usual headers are set here; the URL is never quoted back (R2).
    frameworkErrors: (err, request, reply) => {
      reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
      // No route was matched: the path as sent, its slashes collapsed as the router would.
      if (request.raw.url?.replace(/\/{2,}/g, '/').startsWith(V1_PREFIX))
        reply.headers(deprecationHeaders(config));
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        return sendProblem(reply, config.publicUrl, 'not-found', 'No resource at this path.');
      }
      return sendProblem(reply, config.publicUrl, 'invalid-request', 'The request path could not be read.');
    },
    // Lenient with old clients (docs/v1-reference.md, R9 in docs/reliability.md): `/getLastLead/` and `//getLastLead` are the same operation.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  }) as unknown as FastifyInstance;

  // Request bodies are JSON (v2); Fastify's default text/plain parser would let a wrong media type through.
  app.removeContentTypeParser('text/plain');
  // Before any route: the OpenAPI document is made from the routes as they register (openapi.ts).
  await describeRoutes(app);
  validateFromRouteSchemas(app);
  decorateProblems(app);
  // The request-wide rules, each added where it is made: synchronous hooks, as few as the order allows.
  const hooks = new RequestHooks(app);
  if (deps.metrics !== undefined) recordHttpMetrics(hooks, deps.metrics, config.v1.sunsetAt);
  hooks.gate((request, reply) => {
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    if (hasDotSegment(request.url)) throw new AppError('not-found', 'No resource at this path.');
  });
  // Its own hook, ahead of every plugin's (CORS, the pages' headers), as the API's gates come after them.
  hooks.install(app);
  app.setErrorHandler(errorHandler(config.publicUrl));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      config.publicUrl,
      'not-found',
      `No resource at ${request.method} ${request.url.split('?')[0]}.`,
    ),
  );

  app.get('/healthz', { schema: routeSchema('health') }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: routeSchema('ready') }, async (_request, reply) => {
    try {
      await store.ping();
      const replica = store.replicaState();
      // Redis down leaves the instance ready: its counters fall back to memory (R14).
      const redis = deps.redisState?.();
      return {
        status: 'ready',
        ...(replica === null ? {} : { replica }),
        ...(redis === undefined ? {} : { redis }),
      };
    } catch {
      reply.header('retry-after', STORE_RETRY_AFTER_SECONDS);
      throw new AppError('store-unavailable', 'The store cannot be reached right now.');
    }
  });

  const now = deps.now ?? Date.now;
  if (deps.metrics !== undefined && config.metrics.token !== null)
    metricsRoute(app, deps.metrics, config.metrics.token);
  countUsage(app, hooks, new UsageLedger(store.retirement), config.usageFlushMs, now);
  // Before v1's hooks: a listed origin's preflight is answered before v1's 405 for OPTIONS (R19).
  await allowCors(app, config.corsOrigins);
  await app.register(pageRoutes);
  const { limit, windowSeconds, syncMs } = config.rateLimit;
  const rateLimiter =
    deps.rateLimiter ?? rateLimiterFor(store.rateCounters(windowSeconds), limit, windowSeconds, syncMs);
  // Counts this instance has not shared yet are handed over as it closes (a given limiter is
  // its giver's to close).
  if (deps.rateLimiter === undefined) app.addHook('onClose', () => rateLimiter.close());
  const api = { config, store, rateLimiter, now };
  // Registered on the root (not as an encapsulated plugin) so its hooks reach v1 404s too.
  await v1Routes(app, { ...api, hooks, brownouts: new BrownoutCache(() => store.retirement.brownouts()) });
  refuseKeysInPath(hooks);
  // After v1's gate, so a throttled v1 answer still carries the deprecation signals (C6).
  throttleAuthFailures(app, hooks, config.authFailureLimit, now);
  // v1's gate, the key-in-path refusal and the failure throttle: one hook, after the pages' headers.
  hooks.install(app);
  await v2Routes(app, api);
  await webhookRoutes(app, api, deps.hostLookup ?? systemLookup);
  await adminRoutes(app, api);
  // The admin console (docs/console.md): its own plugin, under the pages' headers.
  await app.register(async (scope) => consoleRoutes(scope, api), { prefix: '/console' });
  return app;
}

/** Trusts the nearest `hops` proxies, as Fastify's numeric `trustProxy` does (proxy-addr). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}
