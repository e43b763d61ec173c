// Longer than the ~250 lines most files keep to: it is the one reader of the environment by design
// (every variable, its default and its bounds in one place, listed together when bad).
import { isIP } from 'node:net';

/**
 * The only reader of the environment. Every setting is validated at start; all bad variables
 * are reported together and the process exits non-zero (see `ConfigError`).
 */
export interface Config {
  port: number;
  host: string;
  /** Embedded store file, used when `databaseUrl` is not set. */
  dbPath: string;
  databaseUrl: string | null;
  /** PostgreSQL read replica for read-only work; never consulted for keys. */
  databaseReadUrl: string | null;
  /** Redis for rate-limit counters shared by instances; without it they live in the store. */
  redisUrl: string | null;
  /** Namespace of leadline's keys in Redis. */
  redisPrefix: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Base of problem type URIs and documentation links. */
  publicUrl: string;
  /** Whether `publicUrl` is LEADLINE_PUBLIC_URL; if not, a server on port 0 rebases it on the port it got. */
  publicUrlFromEnv: boolean;
  /** Connection timeouts (docs/scaling.md): an idle keep-alive connection, the header block, a whole request. */
  timeouts: { keepAliveMs: number; headersMs: number; requestMs: number };
  /**
   * `syncMs`: how often each instance adds its counts to the shared counters (PostgreSQL or
   * Redis) and learns the totals; 0: one round trip per request, exact across instances.
   */
  rateLimit: { limit: number; windowSeconds: number; syncMs: number };
  /** PostgreSQL pool: bounded size, connect and statement timeouts. */
  pg: { poolMax: number; connectTimeoutSeconds: number; statementTimeoutMs: number };
  v1: { deprecatedAt: number; frozenAt: number; sunsetAt: number | null };
  /**
   * How far ahead a scheduled brownout is announced on the v1 answers of the keys it covers
   * (`Warning`, docs/v1-deprecation-policy.md "Brownouts"); 0: not announced.
   */
  v1BrownoutNoticeMs: number;
  shutdownGraceMs: number;
  /** How often the usage ledger is written to the store; a crash loses at most this much. */
  usageFlushMs: number;
  /** Failed authentications one client address may make per minute before it is refused. */
  authFailureLimit: number;
  /** The longest a console session lasts, however active (docs/console.md): it ends this long after sign-in. */
  consoleSessionMaxMs: number;
  /**
   * Which proxies' `X-Forwarded-For` to believe (Fastify's `trustProxy`): `false` (the socket's
   * address is the client), a hop count, or the proxies' addresses and CIDR ranges.
   */
  trustProxy: false | number | string[];
  /** Origins a browser may call the API from (CORS); empty: no cross-origin calls. */
  corsOrigins: string[];
  /** How far in the future a capture time may lie (clock skew of the collecting devices). */
  captureToleranceMs: number;
  /** The largest import record (one NDJSON line), in bytes. */
  importMaxRecordBytes: number;
  /** A lead change through the API (update, merge) must name the version it was made from in `If-Match` (else 428). */
  requireIfMatch: boolean;
  /**
   * Prometheus metrics (docs/operations.md): on their own listener (`port`, on `host`) and/or on
   * the API port behind `Authorization: Bearer <token>`. Neither set: no metrics at all.
   */
  metrics: { port: number | null; host: string; token: string | null };
  /** OpenTelemetry tracing: on only when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md#tracing). */
  tracing: { endpoint: string | null; serviceName: string };
  /** Webhooks (docs/webhooks.md). */
  webhooks: WebhookConfig;
  /** Retention policies' schedule and erasure receipts' keeping (docs/privacy.md "Retention"). */
  retention: RetentionConfig;
  /** A v1 range or v2 search page returning more leads than this leaves a `leads.bulk_read` audit record. */
  auditBulkRead: number;
  /**
   * Waiting feed requests (docs/v2.md "Waiting for changes"): the longest `wait=` a long-poll
   * may ask for, and how often a Server-Sent Events stream sends a heartbeat comment — below the
   * idle timeout of any proxy in front, so the proxy never closes a quiet stream.
   */
  feed: { maxWaitSeconds: number; heartbeatSeconds: number };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** Strict ISO-8601 date-time with an explicit offset (or a plain date, taken as UTC midnight). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export function parseIsoTime(value: string): number | null {
  if (!ISO_TIME.test(value)) return null;
  const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(ms) ? null : ms;
}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration; `overrides` are command-line flags, which win. */
export function loadConfig(
  env: Env = process.env,
  overrides: Partial<Pick<Config, 'port' | 'host' | 'dbPath' | 'databaseUrl'>> = {},
): Config {
  const problems: string[] = [];
  const { get, int } = envReader(env, problems);

  const port = overrides.port ?? int('PORT', 3000, 0, 65535);
  const logLevel = get('LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  // `--db` passes databaseUrl: null, which must win over DATABASE_URL (not read as "not given").
  const databaseUrl =
    overrides.databaseUrl !== undefined ? overrides.databaseUrl : (get('DATABASE_URL') ?? null);
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL');
  }
  const databaseReadUrl = get('DATABASE_READ_URL') ?? null;
  if (databaseReadUrl !== null && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    problems.push('DATABASE_READ_URL: expected a postgres:// or postgresql:// URL');
  }
  if (databaseReadUrl !== null && databaseUrl === null) {
    problems.push('DATABASE_READ_URL: a read replica needs DATABASE_URL (or --database-url) for the primary');
  }
  const redisUrl = get('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL: expected a redis:// or rediss:// URL');
  const host = overrides.host ?? get('HOST') ?? '127.0.0.1';
  const publicUrl = (get('LEADLINE_PUBLIC_URL') ?? defaultPublicUrl(host, port)).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(publicUrl)) problems.push('LEADLINE_PUBLIC_URL: expected an http(s) URL');

  const trustProxy = parseTrustProxy(get('LEADLINE_TRUST_PROXY'), problems);
  const corsOrigins = parseOrigins(get('LEADLINE_CORS_ORIGINS'), problems);

  const config: Config = {
    port,
    host,
    dbPath: overrides.dbPath ?? get('LEADLINE_DB') ?? './data/leadline.db',
    databaseUrl,
    databaseReadUrl,
    redisUrl,
    redisPrefix: get('LEADLINE_REDIS_PREFIX') ?? 'leadline',
    logLevel: logLevel as Config['logLevel'],
    publicUrl,
    publicUrlFromEnv: get('LEADLINE_PUBLIC_URL') !== undefined,
    timeouts: connectionTimeouts(int, problems),
    rateLimit: {
      limit: int('LEADLINE_RATE_LIMIT', 600, 1, 1_000_000_000),
      windowSeconds: int('LEADLINE_RATE_WINDOW_SECONDS', 60, 1, 86_400),
      syncMs: int('LEADLINE_RATE_SYNC_MS', 250, 0, 60_000),
    },
    pg: {
      poolMax: int('LEADLINE_PG_POOL_MAX', 10, 1, 1000),
      connectTimeoutSeconds: int('LEADLINE_PG_CONNECT_TIMEOUT_SECONDS', 10, 1, 600),
      statementTimeoutMs: int('LEADLINE_PG_STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    },
    v1: v1Settings(get, problems),
    v1BrownoutNoticeMs: int('LEADLINE_V1_BROWNOUT_NOTICE_DAYS', 14, 0, 365) * 86_400_000,
    shutdownGraceMs: int('LEADLINE_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    usageFlushMs: int('LEADLINE_USAGE_FLUSH_MS', 5_000, 100, 3_600_000),
    authFailureLimit: int('LEADLINE_AUTH_FAILURE_LIMIT', 30, 1, 1_000_000),
    consoleSessionMaxMs: int('LEADLINE_CONSOLE_SESSION_MAX_HOURS', 12, 1, 8760) * 3_600_000,
    trustProxy,
    corsOrigins,
    metrics: metricsSettings(get, int, problems),
    tracing: tracingSettings(env, problems),
    ...importSettings(int),
    requireIfMatch: trueOrFalse(get, 'LEADLINE_REQUIRE_IF_MATCH', problems),
    webhooks: webhookSettings(get, int, problems),
    retention: retentionSettings(int),
    auditBulkRead: int('LEADLINE_AUDIT_BULK_READ', 500, 0, 1_000_000_000),
    feed: {
      maxWaitSeconds: int('LEADLINE_FEED_MAX_WAIT_SECONDS', 30, 1, 3600),
      heartbeatSeconds: int('LEADLINE_FEED_HEARTBEAT_SECONDS', 15, 1, 3600),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `LEADLINE_METRICS_PORT` (0: any free port), `LEADLINE_METRICS_HOST`, `LEADLINE_METRICS_TOKEN` (16+ characters). */
function metricsSettings(
  get: (name: string) => string | undefined,
  int: IntReader,
  problems: string[],
): Config['metrics'] {
  const port = get('LEADLINE_METRICS_PORT') === undefined ? null : int('LEADLINE_METRICS_PORT', 0, 0, 65535);
  const token = get('LEADLINE_METRICS_TOKEN') ?? null;
  if (token !== null && !/^[\x21-\x7e]{16,}$/.test(token))
    problems.push('LEADLINE_METRICS_TOKEN: expected at least 16 printable characters, no spaces');
  return { port, host: get('LEADLINE_METRICS_HOST') ?? '127.0.0.1', token };
}

/**
 * OTEL_EXPORTER_OTLP_ENDPOINT (an http(s) URL) turns tracing on; OTEL_SERVICE_NAME names the
 * service (default `leadline`). The exporter reads the other OTEL_* variables itself.
 */
export function tracingSettings(env: Env = process.env, problems: string[] = []): Config['tracing'] {
  const { get } = envReader(env, problems);
  const endpoint = get('OTEL_EXPORTER_OTLP_ENDPOINT') ?? null;
  if (endpoint !== null && !/^https?:\/\/[^\s/]+/.test(endpoint))
    problems.push('OTEL_EXPORTER_OTLP_ENDPOINT: expected an http(s) URL');
  return { endpoint, serviceName: get('OTEL_SERVICE_NAME') ?? 'leadline' };
}

/**
 * The public URL when LEADLINE_PUBLIC_URL is not set: the service on this machine, by the host
 * name it listens on — `localhost` and `127.0.0.1` are two origins to a browser, and a console
 * session made on one is signed out on the other. A wildcard address (`0.0.0.0`,
 * `::`) is no address to browse: the loopback one, which it accepts, stands for it.
 */
export function defaultPublicUrl(host: string, port: number): string {
  const name = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/**
 * The keep-alive outlives the idle timeout of the balancers in front (AWS ALB and nginx's
 * upstream keep-alive: 60 s), so an idle connection is closed by the balancer, never by the
 * service while a request is on its way. Node (>= 18) starts the header deadline at a request's
 * first byte, not at the end of the previous response, so it need not exceed the keep-alive and
 * stays the short slowloris cut-off; Node refuses it above the whole request's deadline.
 */
function connectionTimeouts(int: IntReader, problems: string[]): Config['timeouts'] {
  const keepAlive = int('LEADLINE_KEEP_ALIVE_SECONDS', 72, 1, 3600);
  const headers = int('LEADLINE_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600);
  const request = int('LEADLINE_REQUEST_TIMEOUT_SECONDS', 30, 1, 3600);
  if (headers > request) {
    problems.push(
      `LEADLINE_HEADERS_TIMEOUT_SECONDS (${headers}) cannot exceed LEADLINE_REQUEST_TIMEOUT_SECONDS (${request}): the header block is part of the request`,
    );
  }
  return { keepAliveMs: keepAlive * 1000, headersMs: headers * 1000, requestMs: request * 1000 };
}

/**
 * The v1 retirement times alone (`keys create`, `v1 status`): those commands need these three,
 * and a bad server setting must not stop them. Throws `ConfigError` like `loadConfig`.
 */
export function loadV1Times(env: Env = process.env): Config['v1'] {
  const problems: string[] = [];
  const times = v1Settings(envReader(env, problems).get, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return times;
}

function v1Settings(get: (name: string) => string | undefined, problems: string[]): Config['v1'] {
  const time = (name: string): number | null => {
    const raw = get(name);
    if (raw === undefined) return null;
    const ms = parseIsoTime(raw);
    if (ms === null)
      problems.push(
        `${name}=${JSON.stringify(raw)}: expected an ISO-8601 time with offset, e.g. 2026-01-01T00:00:00Z`,
      );
    return ms;
  };
  const deprecatedAt = time('LEADLINE_V1_DEPRECATED_AT') ?? Date.parse('2026-01-01T00:00:00Z');
  const frozenAt = time('LEADLINE_V1_FROZEN_AT') ?? deprecatedAt;
  const sunsetAt = time('LEADLINE_V1_SUNSET_AT');
  if (sunsetAt !== null && sunsetAt < deprecatedAt) {
    problems.push(
      'LEADLINE_V1_SUNSET_AT: the sunset cannot come before the deprecation time (LEADLINE_V1_DEPRECATED_AT)',
    );
  }
  return { deprecatedAt, frozenAt, sunsetAt };
}

export type ImportConfig = Pick<Config, 'captureToleranceMs' | 'importMaxRecordBytes'>;

/**
 * The settings `leadline import` obeys, alone: the import needs these two, and a bad server
 * setting (a port, say) must not stop it. Throws `ConfigError` like `loadConfig`.
 */
export function loadImportConfig(env: Env = process.env): ImportConfig {
  const problems: string[] = [];
  const settings = importSettings(envReader(env, problems).int);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

function importSettings(int: IntReader): ImportConfig {
  return {
    captureToleranceMs: int('LEADLINE_CAPTURE_TOLERANCE_SECONDS', 86_400, 0, 31_536_000) * 1000,
    importMaxRecordBytes: int('LEADLINE_IMPORT_MAX_RECORD_BYTES', 1_048_576, 1024, 268_435_456),
  };
}

export interface RetentionConfig {
  /** How often the server runs the teams' retention policies; 0: never (`leadline retention run` from cron). */
  intervalMs: number;
  /** Erasure receipts older than this many days are pruned by each run. */
  receiptDays: number;
}

/** The retention settings alone, for `leadline retention run`. Throws `ConfigError` like `loadConfig`. */
export function loadRetentionConfig(env: Env = process.env): RetentionConfig {
  const problems: string[] = [];
  const settings = retentionSettings(envReader(env, problems).int);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

function retentionSettings(int: IntReader): RetentionConfig {
  return {
    intervalMs: int('LEADLINE_RETENTION_INTERVAL_SECONDS', 3600, 0, 604_800) * 1000,
    // Three years: the usual limitation period for a claim about how a request was answered.
    receiptDays: int('LEADLINE_ERASURE_RECEIPT_DAYS', 1095, 1, 36_500),
  };
}

export interface WebhookConfig {
  /** `http` and private, loopback and link-local addresses allowed (on-premises receivers, tests). */
  allowPrivate: boolean;
  /** The only ports endpoint URLs may name (docs/webhooks.md "Where webhooks may go"); null: any port. */
  ports: readonly number[] | null;
  /** AES-256 key sealing endpoint secrets in the store; null: secrets stored as they are. */
  secretKey: Buffer | null;
  /** How long a rotated-out secret keeps signing beside the new one. */
  rotationGraceMs: number;
  /** An endpoint failing without a break this long is disabled. */
  disableAfterMs: number;
  /** How long an undeliverable event is kept (with its attempts) before it is dropped, with a record. */
  retentionMs: number;
  /**
   * How long the event log keeps an event (docs/v2.md "Events"): older ones are pruned, unless a
   * pending delivery still needs them, and a cursor behind them is answered 410.
   */
  eventRetentionMs: number;
  /** How often an idle delivery loop looks for due work. */
  pollMs: number;
  /** Deliveries one instance has in flight at once. */
  concurrency: number;
  /**
   * Of those, at most this many for one team (docs/webhooks.md "One team cannot hold up the others"): a team whose receivers stall holds no
   * more than this many slots, and the others stay free for every other team.
   */
  teamConcurrency: number;
  /** Endpoints one team may register (docs/webhooks.md "Limits and figures"). */
  maxEndpoints: number;
}

/**
 * The webhook settings alone, for the CLI (`leadline webhooks add` checks URLs and seals secrets
 * as the server does). Throws `ConfigError` like `loadConfig`.
 */
export function loadWebhookConfig(env: Env = process.env): WebhookConfig {
  const problems: string[] = [];
  const { get, int } = envReader(env, problems);
  const settings = webhookSettings(get, int, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/** A `true`/`false` setting, false when unset. */
function trueOrFalse(get: (name: string) => string | undefined, name: string, problems: string[]): boolean {
  const value = get(name) ?? 'false';
  if (value !== 'true' && value !== 'false') problems.push(`${name}: expected true or false`);
  return value === 'true';
}

function webhookSettings(
  get: (name: string) => string | undefined,
  int: IntReader,
  problems: string[],
): WebhookConfig {
  const allowPrivate = trueOrFalse(get, 'LEADLINE_WEBHOOK_ALLOW_PRIVATE', problems);
  const rawKey = get('LEADLINE_WEBHOOK_SECRET_KEY');
  const secretKey = rawKey === undefined ? null : Buffer.from(rawKey, 'base64');
  if (secretKey !== null && (secretKey.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(rawKey!)))
    problems.push('LEADLINE_WEBHOOK_SECRET_KEY: expected 32 bytes in base64 (openssl rand -base64 32)');
  const DAY = 86_400_000;
  const concurrency = int('LEADLINE_WEBHOOK_CONCURRENCY', 64, 1, 1000);
  return {
    allowPrivate,
    ports: portList(get('LEADLINE_WEBHOOK_PORTS'), problems),
    secretKey,
    rotationGraceMs: int('LEADLINE_WEBHOOK_ROTATION_GRACE_HOURS', 24, 0, 720) * 3_600_000,
    disableAfterMs: int('LEADLINE_WEBHOOK_DISABLE_AFTER_DAYS', 5, 1, 365) * DAY,
    retentionMs: int('LEADLINE_WEBHOOK_RETENTION_DAYS', 30, 1, 3650) * DAY,
    eventRetentionMs: int('LEADLINE_EVENT_RETENTION_DAYS', 30, 1, 3650) * DAY,
    pollMs: int('LEADLINE_WEBHOOK_POLL_MS', 100, 10, 60_000),
    concurrency,
    teamConcurrency: Math.min(concurrency, int('LEADLINE_WEBHOOK_TEAM_CONCURRENCY', 16, 1, 1000)),
    maxEndpoints: int('LEADLINE_WEBHOOK_MAX_ENDPOINTS', 20, 1, 1000),
  };
}

/** `LEADLINE_WEBHOOK_PORTS`: a comma list of ports (`443,8443`); unset: any port. */
function portList(raw: string | undefined, problems: string[]): number[] | null {
  if (raw === undefined) return null;
  const ports = raw.split(',').map((p) => p.trim());
  if (ports.every((p) => /^\d{1,5}$/.test(p) && Number(p) >= 1 && Number(p) <= 65_535))
    return [...new Set(ports.map(Number))];
  problems.push(
    `LEADLINE_WEBHOOK_PORTS=${JSON.stringify(raw)}: expected ports from 1 to 65535, like 443,8443`,
  );
  return null;
}

type IntReader = (name: string, fallback: number, min: number, max: number) => number;

/** Reads variables, an empty one as unset; a bad integer is added to `problems` and its fallback used. */
function envReader(env: Env, problems: string[]): { get(name: string): string | undefined; int: IntReader } {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const int: IntReader = (name, fallback, min, max) => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: expected an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  return { get, int };
}

/**
 * `LEADLINE_TRUST_PROXY`: unset, `false` or `off` — no proxy is trusted; a whole number — that
 * many proxy hops in front of the service; otherwise a comma-separated list of addresses and
 * CIDR ranges (e.g. `10.0.0.0/8, 127.0.0.1`). `true` (trust any sender) is refused on purpose:
 * it lets every client choose its own address.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw === 'false' || raw === 'off') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= 32) return hops;
    problems.push(`LEADLINE_TRUST_PROXY=${JSON.stringify(raw)}: a hop count is from 1 to 32`);
    return false;
  }
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0 || entries.length === 0) {
    problems.push(
      `LEADLINE_TRUST_PROXY=${JSON.stringify(raw)}: expected off, a hop count, or addresses/CIDR ranges such as 10.0.0.0/8,127.0.0.1`,
    );
    return false;
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** `LEADLINE_CORS_ORIGINS`: comma-separated origins, each `scheme://host[:port]` and nothing more. */
function parseOrigins(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return [];
  const origins = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const origin of origins) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(origin).protocol) && new URL(origin).origin === origin;
    } catch {
      ok = false;
    }
    if (!ok) {
      problems.push(
        `LEADLINE_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path, no trailing slash)`,
      );
    }
  }
  return origins;
}
