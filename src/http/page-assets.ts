import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { routeSchema } from './route-schema.js';

// The files sit in src/http/assets/; this module runs from src/http/ (tsx) or dist/http/ (the
// built CLI), both two levels below the checkout, as pages.ts finds docs/.
const ASSETS_DIR = fileURLToPath(new URL('../../src/http/assets/', import.meta.url));

/** Each served file: its URL, the file under src/http/assets/ and its media type. */
const ASSETS = [
  {
    url: '/assets/leadline.css',
    file: 'leadline.css',
    type: 'text/css; charset=utf-8',
    operation: 'pageAsset',
  },
  {
    url: '/assets/reference.css',
    file: 'reference.css',
    type: 'text/css; charset=utf-8',
    operation: 'pageAsset',
  },
  // Browsers ask every site for /favicon.ico; an SVG answers it (every current browser draws one).
  { url: '/favicon.ico', file: 'favicon.svg', type: 'image/svg+xml', operation: 'favicon' },
] as const;

/**
 * The pages' script, styles and icon as files of their own, so the pages' Content-Security-Policy
 * allows `'self'` and nothing inline (R17). A fixed list: no path from the request reaches the disk.
 */
export function pageAssets(app: FastifyInstance): void {
  for (const asset of ASSETS) {
    const body = readFileSync(`${ASSETS_DIR}${asset.file}`, 'utf8');
    // Fetched again with each page (small files), so a deploy never pairs a page with a stale script.
    app.get(asset.url, { schema: routeSchema(asset.operation) }, async (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'no-cache').send(body),
    );
  }
}
