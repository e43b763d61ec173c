import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { makeApp, makeStore } from '../support/helpers.js';

describe('pages the API points at', () => {
  let app: FastifyInstance;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeStore();
    cleanup = made.cleanup;
    app = await makeApp(made.store);
  });
  after(async () => {
    await app.close();
    await cleanup();
  });

  for (const [page, anchor] of [
    ['v2', 'search-leads'],
    ['v1-migration', null],
    ['v1-deprecation-policy', null],
  ] as const) {
    it(`/docs/${page} is an HTML page a browser shows${anchor === null ? '' : `, with #${anchor}`}`, async () => {
      const res = await app.inject({ url: `/docs/${page}`, headers: { accept: 'text/html' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(res.body, /^<!doctype html>/);
      if (anchor !== null) assert.match(res.body, new RegExp(`id="${anchor}"`));
      const md = await app.inject({ url: `/docs/${page}`, headers: { accept: 'text/markdown' } });
      assert.equal(md.headers['content-type'], 'text/markdown; charset=utf-8');
      assert.match(md.body, /^# /m);
    });
  }

  it('serves nothing outside docs/', async () => {
    for (const url of ['/docs/..%2Fpackage', '/docs/nope', '/docs/.env']) {
      assert.equal((await app.inject({ url })).statusCode, 404, url);
    }
    // `/docs/..` is `/` once the URL is resolved (as a browser resolves it): the home page, the
    // README — never a directory listing or another file.
    const home = await app.inject({ url: '/' });
    assert.equal((await app.inject({ url: '/docs/%2E%2E' })).body, home.body);
  });

  it('/openapi.json is the v2 OpenAPI document', async () => {
    const res = await app.inject({ url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.equal((JSON.parse(res.body) as { openapi: string }).openapi, '3.1.0');
  });
});
