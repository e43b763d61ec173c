import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { routeOf } from '../request-hooks.js';

export const V1_PREFIX = '/api/pub/leads/';

/**
 * Whether the router matched this request to a v1 route: one of the operations, or the prefix's
 * catch-all (src/http/v1/routes.ts). Every v1 decision reads this, never the URL as sent: the
 * router collapses duplicate slashes and decodes `%xx`, so `//api/pub/%6Ceads/getLastLead` is
 * `getLastLead`, and must get its gates (sunset, brownouts, freeze, headers, ledger).
 */
export function isV1Route(request: FastifyRequest): boolean {
  return routeOf(request)?.startsWith(V1_PREFIX) === true;
}

/**
 * The deprecation signals every v1 response carries, errors included (docs/v1-reference.md, C6):
 * RFC 9745 `Deprecation` (a structured date), RFC 8594 `Sunset` (only when configured) and
 * `Link`s to the migration guide, the successor operation and, with a sunset, the policy.
 */
export function deprecationHeaders(config: Config): Record<string, string> {
  const base = config.publicUrl;
  const links = [
    `<${base}/docs/v1-migration>; rel="deprecation"; type="text/html"`,
    `<${base}/docs/v2#search-leads>; rel="successor-version"`,
  ];
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(config.v1.deprecatedAt / 1000)}`,
  };
  if (config.v1.sunsetAt !== null) {
    headers.sunset = new Date(config.v1.sunsetAt).toUTCString();
    links.push(`<${base}/docs/v1-deprecation-policy>; rel="sunset"; type="text/html"`);
  }
  headers.link = links.join(', ');
  return headers;
}
