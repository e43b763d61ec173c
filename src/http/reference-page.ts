import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { SITE_NAV } from './doc-page.js';
import { PAGE_CSP } from './page-headers.js';
import { routeSchema } from './route-schema.js';

/**
 * `/docs`: the API reference, rendered in the browser by Redoc from /openapi.json — every
 * operation, v1's marked deprecated with a link to its v2 replacement. Redoc's standalone bundle
 * is served from the installed package and the page's own script is a file: nothing comes from
 * a CDN, nothing runs inline. Redoc writes its styles into the page (styled-components) and
 * runs its search in a worker made from a blob, so this page's policy adds inline styles and
 * blob workers to the pages' policy; scripts stay `'self'` only. The site's links are at its top,
 * as on every other page.
 */

/**
 * Redoc's footer always draws Redocly's logo from their CDN, which the policy refuses (a CSP
 * violation on every load) and a server without network could not fetch anyway: the bundle is
 * served without that image. The exact text of the pinned version (package.json); a Redoc that
 * no longer has it fails here, at start, rather than quietly loading the logo again.
 */
const LOGO_IMAGE =
  'e?n.createElement("img",{alt:"redocly logo",onError:()=>t(!1),src:"https://cdn.redoc.ly/redoc/logo-mini.svg"}):null';

export function withoutFooterLogo(bundle: string): string {
  if (!bundle.includes(LOGO_IMAGE))
    throw new Error("Redoc's footer logo was not found in its bundle: see reference-page.ts");
  return bundle.replace(LOGO_IMAGE, 'null');
}

const BUNDLE = withoutFooterLogo(
  readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8'),
);
const SCRIPT = readFileSync(
  fileURLToPath(new URL('../../src/http/assets/reference.js', import.meta.url)),
  'utf8',
);

const CSP = Object.entries({
  ...PAGE_CSP,
  styleSrc: ["'self'", "'unsafe-inline'"],
  workerSrc: ["'self'", 'blob:'],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
})
  .map(([name, values]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`)
  .join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>leadline API reference</title>
<link rel="stylesheet" href="/assets/reference.css">
</head>
<body>
${SITE_NAV}
<div id="reference"><p>The API reference needs JavaScript. The document itself: <a href="/openapi.json">/openapi.json</a>; the guides: <a href="/docs/v2">v2</a>, <a href="/docs/v1-migration">moving off v1</a>.</p></div>
<script src="/assets/redoc.standalone.js"></script>
<script src="/assets/reference.js"></script>
</body>
</html>
`;

export function referencePage(app: FastifyInstance): void {
  const script = (body: string) => async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(body);
  const asset = { schema: routeSchema('pageAsset') };
  app.get('/assets/redoc.standalone.js', asset, script(BUNDLE));
  app.get('/assets/reference.js', asset, script(SCRIPT));
  app.get('/docs', { schema: routeSchema('apiReference') }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE),
  );
}
