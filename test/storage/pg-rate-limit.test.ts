import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres, { type Sql } from 'postgres';
import { SharedRateLimiter } from '../../src/rate-limit/shared-counters.js';
import { PostgresRateCounters } from '../../src/storage/postgres/rate-limit.js';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';

/**
 * Issue 16: PostgreSQL rate-limit counters shared between instances in the background. On one
 * instance the count is exact; a key's first request in a window starts from what the other
 * instances counted; counts made on one instance reach the others through sync(); with
 * syncMs 0 every request is one upsert (the exact mode); close() hands over what is pending. Syncs
 * are called by the test, not by timers, so nothing here depends on timing.
 */
describe('PostgreSQL rate-limit counters', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let sql: Sql;
  let cleanup: () => Promise<void>;
  const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);
  before(async () => {
    const made = await makeEngineStore('postgres');
    cleanup = made.cleanup;
    sql = postgres(made.location.databaseUrl!, { max: 2, onnotice: () => {} });
  });
  after(async () => {
    await sql?.end();
    await cleanup?.();
  });

  const limiter = (limit: number, syncMs: number) =>
    new SharedRateLimiter(new PostgresRateCounters(sql, 60, () => NOW), limit, 60, syncMs, () => NOW);
  const used = async (l: SharedRateLimiter, key: string, n: number) => {
    const states = [];
    for (let i = 0; i < n; i++) states.push(await l.consume(key));
    return states;
  };

  it('on one instance the count is exact, in memory after the first request', async () => {
    const l = limiter(5, 60_000);
    const states = await used(l, 'one', 7);
    assert.deepEqual(
      states.map((s) => [s.allowed, s.remaining]),
      [
        [true, 4],
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ],
    );
    const [row] = await sql<{ count: number }[]>`SELECT count FROM rate_limits WHERE bucket = 'one'`;
    assert.equal(row?.count, 1, 'only the first request went to the store');
    await l.sync();
    const [synced] = await sql<{ count: number }[]>`SELECT count FROM rate_limits WHERE bucket = 'one'`;
    assert.equal(synced?.count, 7, 'sync adds what was counted here');
  });

  it('counts reach other instances: through the first request of a window, and through sync', async () => {
    const [a, b] = [limiter(10, 60_000), limiter(10, 60_000)];
    await used(a, 'two', 4);
    await a.sync();
    assert.equal((await b.consume('two')).remaining, 5, 'b starts from a’s 4');
    await used(b, 'two', 2); // b: 7 in all
    await used(a, 'two', 1); // a: 4 + 1 pending, unaware of b's 2 since
    await b.sync();
    await a.sync(); // a learns the total: 4 + 3 + 1 = 8
    assert.equal((await a.consume('two')).remaining, 1);
    assert.equal((await a.consume('two')).allowed, true, 'the 10th');
    assert.equal((await a.consume('two')).allowed, false, 'the 11th');
  });

  it('between syncs instances may admit more than the limit together, never more than it each', async () => {
    const [a, b] = [limiter(5, 60_000), limiter(5, 60_000)];
    const both = [...(await used(a, 'three', 6)), ...(await used(b, 'three', 6))];
    const admitted = both.filter((s) => s.allowed).length;
    assert.ok(admitted >= 5 && admitted <= 10, `admitted ${admitted}`);
    await a.sync();
    await b.sync();
    await a.sync();
    assert.equal((await a.consume('three')).allowed, false);
    assert.equal((await b.consume('three')).allowed, false);
  });

  it('with syncMs 0 every request is counted in the store at once', async () => {
    const [a, b] = [limiter(3, 0), limiter(3, 0)];
    const states = [
      await a.consume('four'),
      await b.consume('four'),
      await a.consume('four'),
      await b.consume('four'),
    ];
    assert.deepEqual(
      states.map((s) => s.allowed),
      [true, true, true, false],
    );
  });

  it('close() adds what this instance counted and had not shared yet', async () => {
    const l = limiter(10, 60_000);
    await used(l, 'five', 4);
    const count = async () =>
      (await sql<{ count: number }[]>`SELECT count FROM rate_limits WHERE bucket = 'five'`)[0]?.count;
    assert.equal(await count(), 1, 'the first request only, before close');
    await l.close();
    assert.equal(await count(), 4);
    await l.close();
    assert.equal(await count(), 4, 'a second close adds nothing');
  });
});
