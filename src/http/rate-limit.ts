import type { RateLimitState } from '../rate-limit/fixed-window.js';

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "default";q=<quota>;w=<window s>` and
 * `RateLimit: "default";r=<remaining>;t=<seconds to reset>`, sent on every response to an
 * authenticated caller; `Retry-After` goes with a 429. Hand-written because @fastify/rate-limit
 * emits only the older X-RateLimit-* / draft-06 fields.
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-policy': `"default";q=${state.limit};w=${state.windowSeconds}`,
    ratelimit: `"default";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
