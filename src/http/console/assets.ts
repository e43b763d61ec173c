import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { routeSchema } from '../route-schema.js';

const require = createRequire(import.meta.url);
// As page-assets.ts: src/http/assets/ from src/http/console/ (tsx) or dist/http/console/ (built).
const ASSETS_DIR = fileURLToPath(new URL('../../../src/http/assets/', import.meta.url));
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The console's script and styles, and uPlot's (the chart library, from its npm package: nothing
 * from a CDN, no font). A fixed list: no path from the request reaches the disk.
 */
const ASSETS = [
  { url: '/assets/console.js', path: `${ASSETS_DIR}console.js`, type: JS },
  { url: '/assets/console.css', path: `${ASSETS_DIR}console.css`, type: CSS },
  { url: '/assets/uplot.js', path: require.resolve('uplot/dist/uPlot.iife.min.js'), type: JS },
  { url: '/assets/uplot.css', path: require.resolve('uplot/dist/uPlot.min.css'), type: CSS },
] as const;

export function consoleAssets(app: FastifyInstance): void {
  for (const asset of ASSETS) {
    const body = readFileSync(asset.path, 'utf8');
    app.get(asset.url, { schema: routeSchema('consoleAsset') }, async (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'no-cache').send(body),
    );
  }
}
