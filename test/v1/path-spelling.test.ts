import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createKey } from '../../src/keys/create-key.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, testConfig } from '../support/helpers.js';
import { M, SUBTEAM, searchRecords } from '../v2/search-fixture.js';

/**
 * Issue 21 §1: every v1 gate follows the route the router matched, not the URL as sent. Each
 * spelling the router accepts gets the canonical path's answer and headers, in every phase of
 * the retirement; a spelling it does not accept (dot segments) is a 404 problem.
 */
const CANONICAL = [
  '/api/pub/leads/getLastLead',
  '/api/pub/leads/getLastLeadTeam',
  `/api/pub/leads/getLastLeadSubTeam?subTeamId=${SUBTEAM}`,
  '/api/pub/leads/getLeadsTimeRange?start=0',
  '/api/pub/leads/getLeadsTimeRangeForTeam?start=0',
  '/api/pub/leads/noSuchOperation',
];

/** Every way to spell `path` that the router takes for it. */
function spellings(path: string): string[] {
  const [p = '', q] = path.split('?');
  const query = q === undefined ? '' : `?${q}`;
  const segments = p.split('/').slice(1);
  const join = (segs: string[]) => `/${segs.join('/')}`;
  const out: string[] = [];
  // A duplicate slash before each segment, all of them at once, and a trailing one (or two).
  for (let i = 0; i < segments.length; i++) {
    out.push(join(segments.map((s, j) => (j === i ? `/${s}` : s))) + query);
  }
  out.push(`//${segments.join('///')}${query}`, `${p}/${query}`, `${p}//${query}`);
  // A percent-encoded letter in each segment, in both cases of hex, and every letter encoded.
  const encode = (c: string, upper: boolean) => {
    const hex = c.charCodeAt(0).toString(16);
    return `%${upper ? hex.toUpperCase() : hex}`;
  };
  for (let i = 0; i < segments.length; i++) {
    for (const upper of [true, false]) {
      out.push(join(segments.map((s, j) => (j === i ? encode(s[0] ?? '', upper) + s.slice(1) : s))) + query);
    }
  }
  out.push(join(segments.map((s) => [...s].map((c) => encode(c, true)).join(''))) + query);
  out.push(`//api/pub/%6Ceads//${segments.at(-1) ?? ''}${query}`);
  return out;
}

const DOT_SPELLINGS = [
  '/api/pub/leads/./getLastLead',
  '/api/pub/leads/../leads/getLastLead',
  '/api/pub/x/../leads/getLastLead',
  '/api/pub/leads/%2e/getLastLead',
  '/api/pub/leads/%2E%2E/leads/getLeadsTimeRangeForTeam?start=0',
  '/api/pub/leads/getLastLead/.',
  '//api/pub/leads/../leads/getLastLead',
];

/** The parts of an answer a client sees, less what differs per request (its id). */
function seen(res: LightMyRequestResponse): object {
  const h = res.headers;
  let body: unknown = res.body;
  if (String(h['content-type']).startsWith('application/problem+json')) {
    const { instance: _id, ...rest } = JSON.parse(res.body) as Record<string, unknown>;
    body = rest;
  }
  const pick = ['content-type', 'cache-control', 'deprecation', 'sunset', 'link', 'etag', 'retry-after'];
  return { status: res.statusCode, headers: pick.map((n) => [n, h[n]]), body };
}

const DEPRECATED = Date.parse('2026-01-01T00:00:00Z');
const NOW = Date.parse('2026-06-01T12:00:00Z');
const PHASES = {
  normal: { env: {}, brownout: false },
  brownout: { env: {}, brownout: true },
  sunset: { env: { LEADLINE_V1_SUNSET_AT: '2026-05-01T00:00:00Z' }, brownout: false },
} as const;

for (const engine of enginesUnderTest()) {
  describe(`v1 path spellings [${engine}]`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let key = '';
    let keyId = 0;

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, searchRecords());
      const created = await createKey(store, { member: M.admin }, DEPRECATED - 86_400_000);
      key = created.key;
      keyId = created.id;
    });
    after(async () => cleanup());

    for (const [phase, setup] of Object.entries(PHASES)) {
      it(`${phase}: each spelling gets the canonical answer and headers; dot segments 404`, async () => {
        const brownout = setup.brownout
          ? await store.retirement.addBrownout({
              startsAt: NOW - 3_600_000,
              endsAt: NOW + 3_600_000,
              keyIds: null,
              createdAt: NOW,
            })
          : null;
        const app = await buildApp({ config: testConfig(setup.env), store, now: () => NOW });
        try {
          for (const canonical of CANONICAL) {
            const expected = seen(await app.inject({ url: canonical, headers: auth(key) }));
            for (const url of spellings(canonical)) {
              const res = await app.inject({ url, headers: auth(key) });
              assert.deepEqual(seen(res), expected, `${url} (${phase})`);
            }
          }
          // On a socket: inject() would resolve the dot segments before the app sees them.
          await app.listen({ port: 0, host: '127.0.0.1' });
          const { port } = app.server.address() as { port: number };
          for (const url of DOT_SPELLINGS) {
            const res = await rawGet(port, url, key);
            assert.match(res, /^HTTP\/1\.1 404 /, `${url} (${phase}): ${res}`);
            assert.match(res, /\r\ncontent-type: application\/problem\+json/i);
            assert.match(res, /"type":"http:\/\/127\.0\.0\.1:3000\/problems\/not-found"/);
            assert.doesNotMatch(res, /\r\ndeprecation:/i, url);
          }
        } finally {
          await app.close();
          if (brownout !== null) await store.retirement.removeBrownout(brownout.id);
        }
      });
    }

    it('the usage ledger counts a spelled call as its operation', async () => {
      const at = Date.parse('2026-07-01T12:00:00Z');
      const app = await buildApp({ config: testConfig(), store, now: () => at });
      const urls = spellings('/api/pub/leads/getLastLeadTeam');
      for (const url of urls) assert.equal((await app.inject({ url, headers: auth(key) })).statusCode, 200);
      await app.close(); // flushes the ledger
      const rows = (await store.retirement.usage('2026-07-01')).filter(
        (r) => r.keyId === keyId && r.operation === 'getLastLeadTeam',
      );
      assert.equal(
        rows.reduce((n, r) => n + r.count, 0),
        urls.length,
      );
    });

    it('an absolute-form request target after the sunset is 410 too (on a socket)', async () => {
      const app = await buildApp({ config: testConfig(PHASES.sunset.env), store, now: () => NOW });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const { port } = app.server.address() as { port: number };
        const answer = await rawGet(port, `http://127.0.0.1:${port}//api/pub/%6Ceads/getLastLead`, key);
        assert.match(answer, /^HTTP\/1\.1 410 /);
        assert.match(answer, /\/problems\/v1-sunset/);
        assert.match(answer, /\r\ndeprecation: @/i);
      } finally {
        await app.close();
      }
    });
  });
}

/** One GET on a fresh connection, the request target sent exactly as given; the whole answer. */
function rawGet(port: number, target: string, key: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      ),
    );
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
    });
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}
