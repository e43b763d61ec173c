import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AuthFailureThrottle } from '../keys/auth-throttle.js';
import { AppError, type ErrorCode } from '../shared/errors.js';
import { keyHashOf } from './auth.js';
import { PROBLEMS, problemType } from './problem.js';
import { type RequestHooks, routeOf } from './request-hooks.js';

/**
 * Throttles client addresses that keep failing authentication (R7, R10): every 401 counts against
 * the address; past the limit its API requests are refused with 429 before any key is looked up
 * — except keys that have authenticated on this instance, and a trickle of others (see
 * AuthFailureThrottle). Which requests are API requests follows the matched route.
 */
export function throttleAuthFailures(
  app: FastifyInstance,
  hooks: RequestHooks,
  limit: number,
  now: () => number,
): void {
  const throttle = new AuthFailureThrottle(limit, 60_000);
  app.decorateRequest('keyHash', undefined);
  hooks.gate((request, reply) => {
    // No failure counted anywhere yet (the usual case): no address is throttled.
    if (throttle.idle || routeOf(request)?.startsWith('/api/') !== true) return;
    const wait = throttle.admit(request.ip, keyHashOf(request), now());
    if (wait === null) return;
    reply.header('retry-after', String(wait));
    throw new AppError(
      'auth-throttled',
      `Too many failed authentications from this address; retry in ${wait} s.`,
    );
  });
  hooks.observe((request, reply) => {
    if (reply.statusCode === 401) throttle.failed(request.ip, keyHashOf(request), now());
    else if (request.usage !== null && request.usage !== undefined) {
      // The key authenticated (the usage mark is set only then).
      const hash = keyHashOf(request);
      if (hash !== null) throttle.succeeded(hash, now());
    }
  });
}

/**
 * Answers the requests Node's HTTP parser refuses before Fastify sees them (malformed request
 * line, headers over 16 KiB, headers or body too slow) with a problem+json too, then closes the
 * connection — instead of Node's bare status line.
 */
export function clientErrorHandler(publicUrl: string) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'request-header-fields-too-large'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request-timeout'
          : 'invalid-request';
    const p = PROBLEMS[code];
    const body = JSON.stringify({
      type: problemType(publicUrl, code),
      title: p.title,
      status: p.status,
      detail: code === 'invalid-request' ? 'The request could not be parsed as HTTP.' : p.description,
    });
    socket.end(
      `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: application/problem+json\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };
}
