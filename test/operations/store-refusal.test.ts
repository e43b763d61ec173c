import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { testDatabaseUrl } from '../support/engines.js';
import { auth, keyFor, load, ONE_LEAD } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Issue 36, R23: a PostgreSQL server that is up but refuses our connections — here its database
 * set to `ALLOW_CONNECTIONS false` and our sessions ended, SQLSTATE 55000 at severity FATAL — is
 * the documented 503 with Retry-After on v1 and v2, as /readyz says, not `500 internal`.
 */
const base = testDatabaseUrl();

describe('PostgreSQL refusing connections (R23)', {
  skip: base === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  const name = `ll_refuse_${randomBytes(5).toString('hex')}`;
  let admin: postgres.Sql;
  let server: ServerProcess;
  let key = '';

  before(async () => {
    admin = postgres(base!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(base!);
    url.pathname = `/${name}`;
    const store = PostgresStore.open(url.toString());
    try {
      await store.migrate();
      await load(store, ONE_LEAD);
      key = await keyFor(store, { member: 1, legacyV1: true });
    } finally {
      await store.close();
    }
    server = await startServerProcess(['--database-url', url.toString()], {
      LEADLINE_PG_CONNECT_TIMEOUT_SECONDS: '2',
    });
  });

  after(async () => {
    await server?.stop();
    await stopAll();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const v1 = () => fetch(`${server.url}/api/pub/leads/getLastLead`, { headers: auth(key) });
  const v2 = () =>
    fetch(`${server.url}/api/pub/v2/leads/search`, {
      method: 'POST',
      headers: { ...auth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ filters: { teamId: 1 } }),
    });

  test('v1 and v2 answer 503 problem+json with Retry-After, as /readyz does', async () => {
    assert.equal((await v1()).status, 200);
    assert.equal((await v2()).status, 200);

    await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;

    for (let round = 0; round < 3; round++) {
      for (const [what, call] of [
        ['v1', v1],
        ['v2', v2],
        ['/readyz', () => fetch(`${server.url}/readyz`)],
      ] as const) {
        const res = await call();
        const body = await res.text();
        assert.equal(res.status, 503, `${what}, round ${round}: ${body.slice(0, 300)}`);
        assert.ok(Number(res.headers.get('retry-after')) > 0, what);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
        assert.match(JSON.parse(body).type, /\/problems\/store-unavailable$/, what);
        assert.doesNotMatch(body, /accepting connections|55000|ll_refuse/, `no internals: ${body}`);
      }
    }

    await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    const back = Date.now();
    let status = 0;
    while (Date.now() - back < 10_000 && status !== 200) {
      status = (await v2()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200, 'serves again once the database takes connections, without a restart');
  });
});
