import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { keyFor, load, makeStore, testConfig } from '../support/helpers.js';
import { assertDeprecation } from '../v1/http-assert.js';

/** Issue 7 R2/R7: failed authentications throttled per address; parser-level errors as problems. */
describe('client limits', () => {
  let app: FastifyInstance;
  let cleanup: () => Promise<void>;
  let key: string;
  before(async () => {
    const made = await makeStore();
    cleanup = made.cleanup;
    await load(made.store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: 'p' },
    ]);
    key = await keyFor(made.store, { member: 1, legacyV1: true });
    app = await buildApp({ config: testConfig({ LEADLINE_AUTH_FAILURE_LIMIT: '5' }), store: made.store });
  });
  after(async () => {
    await app.close();
    await cleanup();
  });

  const from = (remoteAddress: string, authorization?: string, url = '/api/pub/leads/getLastLead') =>
    app.inject({ url, remoteAddress, headers: authorization === undefined ? {} : { authorization } });

  it('refuses an address after repeated failed authentications; a good key still gets in (R10)', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await from('10.0.0.1', 'Bearer wrong')).statusCode, 401);
    const refused = await from('10.0.0.1', 'Bearer wrong');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    assert.equal(JSON.parse(refused.body).type, 'http://127.0.0.1:3000/problems/auth-throttled');
    assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
    assertDeprecation(refused);
    const v2 = await from('10.0.0.1', 'Bearer wrong', '/api/pub/v2/leads/changes');
    assert.equal(v2.statusCode, 429);
    // A well-formed key is looked up (the trickle), and once it authenticates it stays served.
    assert.equal((await from('10.0.0.1', `Bearer ${key}`)).statusCode, 200);
    assert.equal((await from('10.0.0.1', `Bearer ${key}`, '/api/pub/v2/leads/changes')).statusCode, 200);
    // Another address is not affected, and successes never count.
    assert.equal((await from('10.0.0.2', `Bearer ${key}`)).statusCode, 200);
    for (let i = 0; i < 10; i++) assert.equal((await from('10.0.0.3', `Bearer ${key}`)).statusCode, 200);
  });

  it('a URL Fastify cannot decode is 400, a 5,000-character id 404: problem+json, the URL not echoed', async () => {
    const bad = await app.inject({ url: '/api/pub/leads/%C0%AF?api_key=llk_secret' });
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
    assert.equal(bad.headers['x-content-type-options'], 'nosniff');
    assertDeprecation(bad);
    assert.doesNotMatch(bad.body, /llk_secret|%C0/);
    const long = await app.inject({ url: `/api/pub/v2/leads/${'a'.repeat(5000)}` });
    assert.equal(long.statusCode, 404);
    assert.equal(JSON.parse(long.body).type, 'http://127.0.0.1:3000/problems/not-found');
  });

  describe('on a socket', () => {
    let port = 0;
    before(async () => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as { port: number }).port;
    });

    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(text));
        let got = '';
        socket.on('data', (d) => {
          got += d.toString();
        });
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
      });

    it('headers over 16 KiB: 431 problem+json, connection closed', async () => {
      const res = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.match(res, /^HTTP\/1\.1 431 /);
      assert.match(res, /content-type: application\/problem\+json/i);
      assert.match(res, /"type":"http:\/\/127\.0\.0\.1:3000\/problems\/request-header-fields-too-large"/);
    });

    it('a request that is not HTTP: 400 problem+json', async () => {
      const res = await raw('HELLO\r\n\r\n');
      assert.match(res, /^HTTP\/1\.1 400 /);
      assert.match(res, /"status":400/);
    });
  });
});
