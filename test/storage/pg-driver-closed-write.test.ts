import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { testDatabaseUrl } from '../engines.js';
import { TcpProxy } from '../tcp-proxy.js';

/**
 * postgres.js 3.4.9 defers small writes to a setImmediate; when the connection had closed by
 * then, the deferred write threw from the immediate — past every await and catch — and the
 * process died (upstream issues #1066, #1154, #1208; seen here as a `leadline serve` killed by a
 * PostgreSQL outage, about 1 test/outage.test.ts run in 12 with LEADLINE_RATE_SYNC_MS=250).
 * leadline ships the driver patched (patches/postgres+3.4.9.patch, applied by `prepare`, bundled
 * in the package). A query on a connection whose server went away must fail, not kill us: on
 * the unpatched driver this test file's process exits with that TypeError.
 */
const url = testDatabaseUrl();

describe('the PostgreSQL driver after its connection closed', {
  skip: url === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let proxy: TcpProxy;
  let sql: Sql;

  before(async () => {
    const target = new URL(url!);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    target.port = String(proxy.port);
    sql = postgres(target.toString(), { max: 2, onnotice: () => {} });
  });

  after(async () => {
    await sql.end({ timeout: 1 });
    await proxy.cut();
  });

  test('a query on a reserved connection whose socket was cut is rejected CONNECTION_CLOSED', async () => {
    const reserved = await sql.reserve();
    try {
      assert.deepEqual([...(await reserved`SELECT 1 AS one`)], [{ one: 1 }]);
      await proxy.cut();
      await new Promise((r) => setTimeout(r, 100)); // the close reaches the driver
      await assert.rejects(reserved`SELECT 1`, { code: 'CONNECTION_CLOSED' });
      await new Promise((r) => setImmediate(r)); // where the unpatched driver threw
    } finally {
      reserved.release();
    }
  });

  test('the pool answers again once the server is reachable', async () => {
    await proxy.restore();
    assert.deepEqual([...(await sql`SELECT 2 AS two`)], [{ two: 2 }]);
  });
});
