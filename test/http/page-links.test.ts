import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { PROBLEMS } from '../../src/http/problem.js';
import { makeEngineStore } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';

/**
 * No served page links a file the server does not serve (issue 22 §9): starting from `/`, every
 * docs page and every problem page, each page's links (`href`, `src`) on this server are
 * followed — a redirect to its target — and must answer 200; a link with a fragment must land
 * on an element with that id. HTML pages found on the way are crawled in turn.
 */
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const ORIGIN = 'http://leadline.test';

describe('the pages link only what the server serves', () => {
  let app: FastifyInstance;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeEngineStore('sqlite');
    cleanup = made.cleanup;
    app = await makeApp(made.store);
  });
  after(async () => {
    await app?.close();
    await cleanup?.();
  });

  /** GET `path`, following redirects on this server; the final answer. */
  async function get(path: string): Promise<{ status: number; type: string; body: string; path: string }> {
    let url = path;
    for (let hops = 0; hops < 5; hops++) {
      const res = await app.inject({ method: 'GET', url });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        url = new URL(location, `${ORIGIN}${url}`).pathname;
        continue;
      }
      return {
        status: res.statusCode,
        type: String(res.headers['content-type'] ?? ''),
        body: res.body,
        path: url,
      };
    }
    throw new Error(`${path}: more than 5 redirects`);
  }

  test('from the home page, every docs page and every problem page', async () => {
    const start = [
      '/',
      ...readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => `/docs/${f.slice(0, -3)}`),
      ...Object.keys(PROBLEMS).map((code) => `/problems/${code}`),
    ];
    const pages = new Map<string, string>();
    const queue = [...start];
    const broken: string[] = [];
    const links: { from: string; to: string }[] = [];
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (pages.has(path)) continue;
      const res = await get(path);
      // The console answers 401 with its sign-in instructions until a link signs one in.
      const signIn = res.status === 401 && path.startsWith('/console/') && res.type.startsWith('text/html');
      if (res.status !== 200 && !signIn) {
        pages.set(path, '');
        broken.push(`${path}: ${res.status}`);
        continue;
      }
      pages.set(path, res.type.startsWith('text/html') ? res.body : '');
      if (!res.type.startsWith('text/html')) continue;
      for (const m of res.body.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
        const raw = (m[1] as string).replaceAll('&#38;', '&');
        const url = new URL(raw, `${ORIGIN}${path}`);
        if (url.origin !== ORIGIN) continue;
        links.push({ from: path, to: `${url.pathname}${url.hash}` });
        if (!pages.has(url.pathname)) queue.push(url.pathname);
      }
    }
    assert.deepEqual(broken, [], 'every page and every link answers 200');
    assert.ok(pages.size >= start.length, `crawled ${pages.size} pages`);
    const missing = links.filter(({ to }) => {
      const [path, id] = to.split('#') as [string, string | undefined];
      if (id === undefined || id === '') return false;
      return !(pages.get(path) ?? '').includes(`id="${decodeURIComponent(id)}"`);
    });
    assert.deepEqual(
      missing.map((l) => `${l.from} → ${l.to}`),
      [],
      'every fragment names an element of its page',
    );
  });

  test('the home page links the docs, the API reference, OpenAPI, the migration guide and the console', async () => {
    const home = (await get('/')).body;
    for (const href of ['/docs', '/docs/v2', '/docs/v1-migration', '/openapi.json', '/console/keys'])
      assert.ok(home.includes(`href="${href}"`), href);
  });

  test('a problem page is styled like the docs and links back', async () => {
    const page = (await get('/problems/invalid-parameters')).body;
    assert.match(page, /<link rel="stylesheet" href="\/assets\/leadline.css">/);
    assert.match(page, /<nav class="site"><a href="\/">leadline<\/a>/);
    assert.match(page, /<h1>400 /);
  });
});
