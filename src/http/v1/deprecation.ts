import type { Config } from '../../config.js';

export const V1_PREFIX = '/api/pub/leads/';

/**
 * The deprecation signals every v1 response carries, errors included (v1-contract C6):
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
