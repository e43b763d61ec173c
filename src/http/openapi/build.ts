import type { ErrorCode } from '../../shared/errors.js';
import { PROBLEMS } from '../problem.js';

/**
 * The small vocabulary the OpenAPI document is written in (src/http/openapi.ts assembles it):
 * references, JSON bodies, responses per problem code, and the response headers leadline sends.
 * Each area's table of operations (v1.ts, v2.ts, service.ts …) is written in these.
 */

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown, example?: unknown): Json => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});
export const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/** Headers every answer to an authenticated caller carries (v1 and v2). */
export const QUOTA_HEADERS = {
  RateLimit: headerRef('RateLimit'),
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
};
/** Headers every answer carries. */
export const COMMON_HEADERS = { 'X-Request-Id': headerRef('XRequestId') };
/** Headers of a v2 success answer: the request id, the key's quota, its caching. */
export const OK_HEADERS = { ...COMMON_HEADERS, ...QUOTA_HEADERS, 'Cache-Control': headerRef('CacheControl') };

/** Problems any v2 operation may answer once it takes a key. */
export const KEYED_ERRORS: ErrorCode[] = [
  'unauthorized',
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
];
/** ... and those of an operation for team admins only (403 for a member's key). */
export const ADMIN_ERRORS: ErrorCode[] = [
  'unauthorized',
  'forbidden',
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
];
/** Problems of an operation that reads a JSON body. */
export const BODY_ERRORS: ErrorCode[] = [
  'invalid-parameters',
  'invalid-request',
  'payload-too-large',
  'unsupported-media-type',
];

/**
 * The responses of some problem codes, grouped by status: codes sharing a status (403
 * forbidden, 403 v1-closed-to-new-integrations) are one response whose description names each
 * `type`. `headers` are added to every one of them.
 */
export function problems(codes: ErrorCode[], headers: Json = {}): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = group.some((c) => RETRY_AFTER.has(c)) ? { 'Retry-After': headerRef('RetryAfter') } : {};
    const challenge = group.includes('unauthorized')
      ? { 'WWW-Authenticate': headerRef('WWWAuthenticate') }
      : {};
    out[String(status)] = {
      description: group.map((c) => `\`${c}\`: ${PROBLEMS[c].description}`).join('\n\n'),
      headers: { ...COMMON_HEADERS, ...retry, ...challenge, ...headers },
      content: { 'application/problem+json': { schema: ref('Problem') } },
    };
  }
  return out;
}

/**
 * The problems of an operation that takes an API key: those answered once the key is known and
 * counted carry the quota headers too (src/http/quota.ts sets them before the operation runs).
 */
export function keyedProblems(codes: ErrorCode[], headers: Json = {}): Record<string, Json> {
  const out = problems(codes, headers);
  for (const code of codes.filter((c) => AFTER_KEY.has(c))) {
    const response = out[String(PROBLEMS[code].status)] as Json;
    response.headers = { ...(response.headers as Json), ...QUOTA_HEADERS };
  }
  return out;
}

/** Problem codes answered after the key was counted against its quota. */
const AFTER_KEY = new Set<ErrorCode>([
  'invalid-parameters',
  'invalid-request',
  'forbidden',
  'not-found',
  'idempotency-conflict',
  'webhook-endpoint-limit',
  'precondition-failed',
  'precondition-required',
  'lead-merged',
  'cursor-expired',
  'email-suppressed',
  'v1-closed-to-new-integrations',
  'v1-brownout',
  'rate-limited',
  'store-unavailable',
]);

/** Problem codes whose answers carry Retry-After. */
const RETRY_AFTER = new Set<ErrorCode>([
  'rate-limited',
  'auth-throttled',
  'store-unavailable',
  'v1-brownout',
]);

/** components.headers: what each response header means. */
export const HEADERS: Json = {
  XRequestId: {
    description: 'The request id: the `instance` of a problem, and the id in the server logs.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'IETF RateLimit field: the quota policy, requests left `r` and seconds to the window end `t` (the quota is per key, shared by v1 and v2).',
    schema: { type: 'string', examples: ['"default";r=599;t=42'] },
  },
  RateLimitPolicy: {
    description: 'IETF RateLimit-Policy field: quota `q` per window of `w` seconds.',
    schema: { type: 'string', examples: ['"default";q=600;w=60'] },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  Deprecation: {
    description: 'RFC 9745: v1 is deprecated since this time (`@` Unix seconds).',
    schema: { type: 'string', examples: ['@1767225600'] },
  },
  Sunset: {
    description: 'RFC 8594: v1 stops answering at this time; sent once a sunset is configured.',
    schema: { type: 'string', examples: ['Tue, 01 Jun 2027 00:00:00 GMT'] },
  },
  Link: {
    description:
      'The migration guide (`rel="deprecation"`), the v2 search reference (`rel="successor-version"`) and, once configured, the sunset notice (`rel="sunset"`).',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'A validator of the answer: send it back in If-None-Match for a 304 while nothing changed.',
    schema: { type: 'string' },
  },
  CacheControl: { description: 'Caching rules of the answer.', schema: { type: 'string' } },
  WWWAuthenticate: {
    description: 'RFC 9110 §11.6.1: the scheme to authenticate with.',
    schema: { type: 'string', examples: ['Bearer realm="leadline"'] },
  },
};
