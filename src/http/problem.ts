import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../shared/errors.js';

declare module 'fastify' {
  interface FastifyReply {
    /** The problem code this reply answers with (sendProblem sets it); null: not a problem. */
    problem: ErrorCode | null;
  }
}

/**
 * RFC 9457 problem details. One table maps each error code to its status and title; the
 * problem `type` is `<public url>/problems/<code>`, a page the service itself serves.
 */
export const PROBLEMS: Record<ErrorCode, { status: number; title: string; description: string }> = {
  'invalid-parameters': {
    status: 400,
    title: 'Invalid parameters',
    description: 'One or more query parameters are missing or malformed; invalid_params names each and why.',
  },
  'invalid-request': { status: 400, title: 'Invalid request', description: 'The request could not be read.' },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'No API key, or a key that is unknown, revoked or expired. Send it as "Authorization: Bearer <key>".',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: "The key's role does not allow this operation.",
  },
  'not-found': { status: 404, title: 'Not found', description: 'No such resource for this caller.' },
  'method-not-allowed': { status: 405, title: 'Method not allowed', description: 'See the Allow header.' },
  'idempotency-conflict': {
    status: 409,
    title: 'Idempotency key reused',
    description:
      'This Idempotency-Key was already used with a different request body; use a new key for a new lead.',
  },
  'precondition-failed': {
    status: 412,
    title: 'Precondition failed',
    description:
      'The lead is no longer at the version If-Match names: someone changed it meanwhile. Read it again (its ETag is its version) and apply the change to what it is now.',
  },
  'precondition-required': {
    status: 428,
    title: 'Precondition required',
    description:
      'This service changes a lead only with If-Match naming the version the change was made from (LEADLINE_REQUIRE_IF_MATCH): read the lead, send its ETag as If-Match.',
  },
  'lead-merged': {
    status: 410,
    title: 'Lead merged',
    description: 'The lead was merged into another; `mergedInto` names the lead it lives on in.',
  },
  'cursor-expired': {
    status: 410,
    title: 'Cursor expired',
    description:
      'The cursor points behind the event log’s retention (LEADLINE_EVENT_RETENTION_DAYS): events after it were pruned, so paging on would skip them. Resynchronise: read the current state from scratch (search, or the lead feed), then follow the events from a fresh cursor (GET /api/pub/v2/events without one).',
  },
  'email-suppressed': {
    status: 422,
    title: 'E-mail suppressed',
    description:
      'The e-mail address was erased at its owner’s request (the privacy guide, /docs/privacy#suppression): leads carrying it are refused until the operator lifts the suppression.',
  },
  'webhook-endpoint-limit': {
    status: 409,
    title: 'Too many webhook endpoints',
    description:
      'The team has as many webhook endpoints as it may (LEADLINE_WEBHOOK_MAX_ENDPOINTS, 20 by default); `limit` says how many. Remove one first, or let one endpoint take several event types.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies are JSON: send Content-Type: application/json.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is too large.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'The key used up its quota for the current window; retry after the Retry-After seconds.',
  },
  'auth-throttled': {
    status: 429,
    title: 'Too many failed authentications',
    description:
      'Too many requests from this address failed authentication; it may try again after the Retry-After seconds.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description: 'The request was not received in time.',
  },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    description: 'The request headers are larger than the server accepts (16 KiB).',
  },
  'v1-closed-to-new-integrations': {
    status: 403,
    title: 'v1 is closed to new integrations',
    description:
      'Keys created after the v1 freeze cannot call v1 without a legacy grant. Use the v2 request named in `successor`; see the migration guide.',
  },
  'v1-brownout': {
    status: 410,
    title: 'v1 brownout',
    description:
      'v1 is switched off for a scheduled window, rehearsing its retirement. It answers again after `brownoutEndsAt` (`Retry-After`: the seconds until then); move to the v2 request in `successor` before the sunset.',
  },
  'v1-sunset': {
    status: 410,
    title: 'v1 has been retired',
    description:
      'The v1 lead retrieval interface is gone. Use the v2 request in `successor` (Search Leads); see the migration guide.',
  },
  'store-unavailable': {
    status: 503,
    title: 'Service unavailable',
    description: 'The store cannot be reached; retry after the Retry-After seconds.',
  },
  internal: { status: 500, title: 'Internal error', description: 'Something went wrong on our side.' },
};

/** Seconds a client is asked to wait while the store is unreachable (503, /readyz). */
export const STORE_RETRY_AFTER_SECONDS = '5';

/** Every reply starts as no problem (metrics read which problem a reply was; src/http/metrics.ts). */
export function decorateProblems(app: FastifyInstance): void {
  app.decorateReply('problem', null);
}

export function problemType(publicUrl: string, code: ErrorCode): string {
  return `${publicUrl}/problems/${code}`;
}

export function sendProblem(
  reply: FastifyReply,
  publicUrl: string,
  code: ErrorCode,
  detail: string,
  extensions: Record<string, unknown> = {},
): FastifyReply {
  const p = PROBLEMS[code];
  reply.problem = code;
  // RFC 9110 §11.6.1: a 401 names the scheme the client should use.
  if (code === 'unauthorized') reply.header('www-authenticate', 'Bearer realm="leadline"');
  return reply
    .code(p.status)
    .header('content-type', 'application/problem+json')
    .header('cache-control', 'no-store')
    .send(
      JSON.stringify({
        type: problemType(publicUrl, code),
        title: p.title,
        status: p.status,
        detail,
        instance: reply.request.id,
        ...extensions,
      }),
    );
}

/**
 * What is wrong with a request Fastify refused while reading it, by its error code. Fastify 5's
 * JSON parser raises FST_ERR_CTP_INVALID_JSON_BODY for a malformed body (no SyntaxError reaches
 * here), FST_ERR_CTP_EMPTY_JSON_BODY for an empty one.
 */
const NOT_JSON = 'The request body is not valid JSON.';
const UNREADABLE: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: NOT_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: NOT_JSON,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body is not as long as its Content-Length header says.',
};

/** A 413's detail names the route's limit (docs/reliability.md, R2): the client knows how much to send. */
export function tooLarge(bodyLimit: number | undefined): string {
  if (bodyLimit === undefined) return 'The request body is too large.';
  const kb = bodyLimit % 1024 === 0 ? `${bodyLimit / 1024} KiB` : `${(bodyLimit / 1024).toFixed(1)} KiB`;
  return `The request body is larger than the limit of ${bodyLimit.toLocaleString('en')} bytes (${kb}).`;
}

/** Errors Fastify itself raises before a handler runs, mapped onto our codes. */
function fromFrameworkError(err: FastifyError, bodyLimit?: number): AppError | null {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new AppError('payload-too-large', tooLarge(bodyLimit));
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new AppError('unsupported-media-type', 'Send the body as Content-Type: application/json.');
  const unreadable = UNREADABLE[err.code] ?? (err instanceof SyntaxError ? NOT_JSON : undefined);
  if (unreadable !== undefined) return new AppError('invalid-request', unreadable);
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError('invalid-request', 'The request could not be read.');
  }
  return null;
}

/** The error handler: never a stack trace, SQL or path in the answer (C5); internals go to the log. */
export function errorHandler(publicUrl: string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const appError = err instanceof AppError ? err : fromFrameworkError(err, request.routeOptions?.bodyLimit);
    if (appError !== null)
      return sendProblem(reply, publicUrl, appError.code, appError.detail, appError.extensions);
    if (isStoreUnavailable(err)) {
      request.log.error({ err: { message: err.message, code: err.code } }, 'store unavailable');
      reply.header('retry-after', STORE_RETRY_AFTER_SECONDS);
      return sendProblem(reply, publicUrl, 'store-unavailable', 'The store cannot be reached right now.');
    }
    request.log.error({ err }, 'unhandled error');
    return sendProblem(
      reply,
      publicUrl,
      'internal',
      'An internal error occurred; quote the instance when reporting it.',
    );
  };
}

/**
 * Failures that mean "the store cannot be reached, or refuses us", not "this request is wrong":
 * SQLite lock and I/O errors; postgres.js's connection errors; PostgreSQL's connection
 * exceptions (class 08), insufficient resources (class 53: too many connections, out of memory,
 * disk full), operator intervention (57P01–57P05: shutdown, cannot connect now, database dropped)
 * and statement timeout (57014); and any FATAL or PANIC message, which ends the session — how
 * PostgreSQL refuses a connection it will not serve (55000 "database is not currently accepting
 * connections", 28P01, 3D000). An ordinary query error is severity ERROR, whatever its class.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  '57014',
]);

/** `severity` is PostgreSQL's non-localised field (V), as postgres.js reports it. */
export function isStoreUnavailable(err: { code?: unknown; severity?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  return (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith('08') ||
    code.startsWith('53') ||
    code.startsWith('57P') ||
    err.severity === 'FATAL' ||
    err.severity === 'PANIC' ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_CANTOPEN')
  );
}
