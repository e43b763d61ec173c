import type { FastifyReply } from 'fastify';
import type { RateLimitState } from '../rate-limit/fixed-window.js';

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "default";q=<quota>;w=<window s>` and
 * `RateLimit: "default";r=<remaining>;t=<seconds to reset>`, sent on every response to an
 * authenticated caller; `Retry-After` goes with a 429. Hand-written because @fastify/rate-limit
 * emits only the older X-RateLimit-* / draft-06 fields.
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'ratelimit-policy': policyOf(state.limit, state.windowSeconds), ratelimit: remainingOf(state) };
}

/** `rateLimitHeaders` set on the reply, without the object in between. */
export function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply
    .header('ratelimit-policy', policyOf(state.limit, state.windowSeconds))
    .header('ratelimit', remainingOf(state));
}

function remainingOf(state: RateLimitState): string {
  return `"default";r=${state.remaining};t=${state.resetSeconds}`;
}

/** The last policy text made: every call of an instance has the same quota and window. */
let policy = { limit: Number.NaN, windowSeconds: Number.NaN, text: '' };

function policyOf(limit: number, windowSeconds: number): string {
  if (policy.limit !== limit || policy.windowSeconds !== windowSeconds)
    policy = { limit, windowSeconds, text: `"default";q=${limit};w=${windowSeconds}` };
  return policy.text;
}
