import { KEY_PREFIX } from '../keys/token.js';
import { AppError } from '../shared/errors.js';
import type { RequestHooks } from './request-hooks.js';

/** The answer to a key sent in a URL, path or query: it has been written to logs on the way (R18). */
export const KEY_IN_URL =
  'API keys are accepted only in the Authorization header, never in the URL; treat a key sent in a URL as leaked and revoke it.';

/** Query parameter names under which clients commonly (and wrongly) send keys. */
const KEY_PARAMS = new Set(['key', 'apikey', 'api_key', 'api-key', 'token', 'access_token', 'authorization']);

export function keyInQuery(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  // for…in, not Object.entries: a query without parameters (most calls) allocates nothing.
  for (const name in query) {
    if (!Object.hasOwn(query, name)) continue;
    const value = (query as Record<string, unknown>)[name];
    if (KEY_PARAMS.has(name.toLowerCase()) || name.includes(KEY_PREFIX)) return true;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes(KEY_PREFIX))) return true;
  }
  return false;
}

/**
 * The same test as the query's: the key prefix anywhere in the path, as sent or percent-decoded
 * (the router decodes `%6Clk_` to `llk_`). A truncated or mistyped key is leaked all the same.
 */
export function keyInPath(url: string): boolean {
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('%')) return path.includes(KEY_PREFIX);
  // Byte by byte, so a malformed escape elsewhere cannot hide one: the prefix is plain ASCII.
  const decoded = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  return decoded.includes(KEY_PREFIX);
}

/**
 * Refuses a request whose path holds a key, on every route — 404s, pages and v1 included — before
 * any handler or store sees it. Registered after v1's hook so a v1 path's 401 keeps the deprecation
 * signals (docs/v1-reference.md, C6); after v1's sunset that hook answers 410 first, as it does for a key in
 * the query (C7: gone, whatever the key). Logs never hold the path (src/logger.ts logs the route).
 */
export function refuseKeysInPath(hooks: RequestHooks): void {
  hooks.gate((request) => {
    if (keyInPath(request.url)) throw new AppError('unauthorized', KEY_IN_URL);
  });
}
