import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../shared/errors.js';
import { escapeHtml, pageShell, renderDocPage } from './doc-page.js';
import { openApiDocument } from './openapi.js';
import { pageAssets } from './page-assets.js';
import { pageHeaders } from './page-headers.js';
import { PROBLEMS } from './problem.js';
import { referencePage } from './reference-page.js';
import { routeSchema } from './route-schema.js';

const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const PAGE = /^[a-z0-9-]+$/;

/**
 * Human-readable pages the API points at: each problem type URI, and the docs the v1 `Link`
 * headers name (served as the Markdown they are written in); their styles. Registered as a
 * plugin of its own: the page headers (CSP and others) reach these
 * routes and no API route.
 */
export async function pageRoutes(app: FastifyInstance): Promise<void> {
  await pageHeaders(app);
  pageAssets(app);
  referencePage(app);

  app.get('/problems/:code', { schema: routeSchema('problemPage') }, async (request, reply) => {
    const { code } = request.params as { code: string };
    const p = Object.hasOwn(PROBLEMS, code) ? PROBLEMS[code as ErrorCode] : undefined;
    if (p === undefined) return reply.callNotFound();
    return reply
      .type('text/html; charset=utf-8')
      .send(
        pageShell(
          p.title,
          `<h1>${p.status} ${escapeHtml(p.title)}</h1>\n<p>${escapeHtml(p.description)}</p>\n<p>How errors are reported: <a href="/docs/v2#common-rules">v2</a>, <a href="/docs/v1-reference#c5-errors">v1</a>.</p>\n`,
        ),
      );
  });

  // The home page: the README, the way into everything else (its links to docs/ are served).
  app.get('/', { schema: routeSchema('home') }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(renderDocPage(await readFile(README, 'utf8'))),
  );

  // Generated from the registered routes' schemas (openapi.ts): the same document as docs/openapi.json.
  app.get('/openapi.json', { schema: routeSchema('openApiDocument') }, async (request) =>
    openApiDocument(request.server),
  );

  app.get('/docs/:page', { schema: routeSchema('docPage') }, async (request, reply) => {
    const page = (request.params as { page: string }).page.replace(/\.md$/, '');
    if (!PAGE.test(page)) return reply.callNotFound();
    let text: string;
    try {
      text = await readFile(`${DOCS_DIR}${page}.md`, 'utf8');
    } catch {
      return reply.callNotFound();
    }
    // HTML for browsers; the Markdown source for clients that ask for it.
    if (/\btext\/markdown\b/.test(request.headers.accept ?? '')) {
      return reply.type('text/markdown; charset=utf-8').send(text);
    }
    return reply.type('text/html; charset=utf-8').send(renderDocPage(text));
  });

  // The page that took a pasted API key is gone (docs/console.md, "Views"): the console's v1 view shows the
  // same report after signing in with a link (docs/console.md). Its API stays: src/http/admin.ts.
  app.get('/admin', { schema: routeSchema('adminPage') }, async (_request, reply) =>
    reply.redirect('/console/v1', 301),
  );
}
