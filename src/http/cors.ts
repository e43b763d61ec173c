import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * What a browser app on a listed origin may do (R19): the API's methods, the four request headers
 * it reads beyond the safelisted ones, and the response headers a client acts on (quota, retry,
 * caching, v1 retirement, support). No credentials: the API is authorised by the Authorization
 * header, never by cookies, so `Access-Control-Allow-Credentials` is never sent.
 */
const OPEN: FastifyCorsOptions = {
  // PATCH and DELETE: a lead's update and a webhook endpoint's removal; If-Match: a change made
  // only at the version read (docs/v2.md "Versions").
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match'],
  exposedHeaders: [
    'RateLimit',
    'RateLimit-Policy',
    'Retry-After',
    'ETag',
    'Deprecation',
    'Sunset',
    'Link',
    'Warning',
    'X-Request-Id',
  ],
  credentials: false,
  // Browsers cap it (Chromium at 2 h); 10 min spares most preflights without pinning a policy long.
  maxAge: 600,
};

/**
 * Cross-origin calls from `origins` only (LEADLINE_CORS_ORIGINS); with none listed, nothing is
 * registered and the API answers exactly as without CORS. A request from any other origin, or
 * an OPTIONS that is not a preflight, is left to the routes: no Access-Control-* header, and
 * OPTIONS answered as before (v1 and v2 paths 405, others 404). Registered before v1's hook, so
 * a preflight is answered before v1's 405 for OPTIONS and its sunset can refuse it.
 */
export async function allowCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const listed = new Set(origins);
  const open: FastifyCorsOptions = { ...OPEN, origin: [...origins] };
  const closed: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      // An OPTIONS without Access-Control-Request-Method is no preflight: the routes answer it.
      const cors =
        request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined;
      callback(null, origin !== undefined && listed.has(origin) && cors ? open : closed);
    },
  });
}
