import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { testDatabaseUrl } from '../support/engines.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Faults of postgres.js 3.4.9 that no caller can work around, shipped patched
 * (patches/postgres+3.4.9.patch, applied by `prepare`, bundled in the package; docs/scaling.md).
 *
 * 1. It defers small writes to a setImmediate; when the connection had closed by
 * then, the deferred write threw from the immediate — past every await and catch — and the
 * process died (upstream issues #1066, #1154, #1208; seen here as a `leadline serve` killed by a
 * PostgreSQL outage, about 1 test/operations/outage.test.ts run in 12 with LEADLINE_RATE_SYNC_MS=250).
 * 2. Each new connection first reads the array types (fetch_types) and drops that promise: when
 * the catalog query fails — the connection lost during start-up, a statement timeout — it is an
 * unhandled rejection, and the process ends (upstream #1192, #1205; seen here as an unhandled
 * ECONNRESET killing `leadline serve` right after a PostgreSQL cut).
 * 3. A query lost with its connection stayed on it: when the database then refused the
 * connection's next start-up (55000), that FATAL answer was taken as the lost query's, and the
 * query waiting to be connected was never answered — requests hung for good (third test).
 * On the unpatched driver the first three tests fail.
 */
const url = testDatabaseUrl();

describe('the PostgreSQL driver, patched', {
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

  test('a failed array-types read at connection start is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    // A 1 ms statement timeout from the start-up packet on cancels the driver's catalog query.
    const strict = postgres(url!, { max: 1, connection: { statement_timeout: 1 }, onnotice: () => {} });
    try {
      await strict`SELECT pg_sleep(0.01)`.catch(() => undefined); // cancelled too: any answer will do
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        unhandled.map((e) => (e as { code?: string }).code ?? String(e)),
        [],
        'no rejection may escape the driver',
      );
    } finally {
      process.off('unhandledRejection', note);
      await strict.end({ timeout: 1 });
    }
  });

  test('a connection whose query was lost with it rejects its next query when the database refuses it', async () => {
    // The third fault, seen as a `leadline serve` whose /readyz (and then every request) hung for
    // good while its database refused connections (test/operations/store-refusal.test.ts, 1 run in 2): the
    // lost query stayed on the connection, so the next start-up's FATAL answer was taken as that
    // query's, and the query waiting for the connection was never answered.
    const name = `ll_drv_${process.pid}_${Date.now()}`;
    const admin = postgres(url!, { max: 1, onnotice: () => {} });
    await proxy.restore();
    const target = new URL(url!);
    target.port = String(proxy.port);
    target.pathname = `/${name}`;
    const one = postgres(target.toString(), { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${name}`);
      assert.deepEqual([...(await one`SELECT 1 AS one`)], [{ one: 1 }]);
      await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      const inFlight = one`SELECT pg_sleep(5)`;
      await new Promise((r) => setTimeout(r, 100)); // sent
      await proxy.cut();
      await assert.rejects(inFlight, { code: 'CONNECTION_CLOSED' });
      await proxy.restore();
      const answer = await Promise.race([
        one`SELECT 1`.then(
          () => 'served',
          (e: { code?: string }) => e.code ?? String(e),
        ),
        new Promise<string>((r) => setTimeout(() => r('no answer within 5 s'), 5000)),
      ]);
      assert.equal(answer, '55000', 'refused: "database is not currently accepting connections"');
    } finally {
      await proxy.cut(); // as the test before left it
      await one.end({ timeout: 1 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  test('the pool answers again once the server is reachable', async () => {
    await proxy.restore();
    assert.deepEqual([...(await sql`SELECT 2 AS two`)], [{ two: 2 }]);
  });
});
