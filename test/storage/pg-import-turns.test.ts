import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { type EngineStore, makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * On PostgreSQL an import inserts the leads it does not find stored with a plain INSERT (no
 * `ON CONFLICT`), so imports into one store take turns (storage/postgres/import.ts `start`): a
 * second import waits for the first to end and then finds its leads stored, as two instances
 * behind a load balancer importing the same file would. Stores in other schemas of the same
 * database do not wait.
 */
const skip = testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false;

const LEADS = 2_500; // three batches of an import
const directory = [
  { type: 'team', id: 1, name: 'One' },
  { type: 'member', id: 11, teamId: 1, email: 'a@one.test', role: 'admin', pid: 'p11' },
];
/** Leads only: with the directory stored before, two imports of them meet only in `leads`. */
const leads = [
  ...Array.from({ length: LEADS }, (_, i) => ({
    type: 'lead',
    userId: 11,
    id: `lead-${i}`,
    epoch: 1_700_000_000_000 + i,
    isLead: true,
    name: `Person ${i}`,
  })),
];

describe('PostgreSQL imports into one store take turns', { skip }, () => {
  let one: EngineStore;
  let other: EngineStore;
  let sql: postgres.Sql;
  before(async () => {
    one = await makeEngineStore('postgres');
    other = await makeEngineStore('postgres');
    sql = postgres(one.location.databaseUrl!, { max: 1, onnotice: () => {} });
    await load(one.store, directory);
    await load(other.store, directory);
  });
  after(async () => {
    await sql.end();
    await one.cleanup();
    await other.cleanup();
  });

  test('the same file imported through two instances at once: stored once, one event a lead', async () => {
    const second = PostgresStore.open(one.location.databaseUrl!);
    try {
      const [a, b] = await Promise.all([load(one.store, leads), load(second, leads)]);
      assert.deepEqual([a.leads, b.leads], [LEADS, LEADS]);
      assert.deepEqual([a.newLeads + b.newLeads, a.changed + b.changed], [LEADS, 0]);
      assert.ok(a.newLeads === 0 || b.newLeads === 0, `${a.newLeads} and ${b.newLeads} new`);
    } finally {
      await second.close();
    }
    const [counts] = await sql<{ leads: number; events: number; seqs: number }[]>`SELECT
      (SELECT count(*) FROM leads)::int AS leads, (SELECT count(DISTINCT seq) FROM leads)::int AS seqs,
      (SELECT count(*) FROM webhook_events WHERE type = 'lead.created')::int AS events`;
    assert.deepEqual(counts, { leads: LEADS, seqs: LEADS, events: LEADS });
  });

  test('a second import waits for the one in progress; another store does not', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // An import that has taken its turn and does not end until released.
    const first = one.store.importAtomically(async () => {
      entered();
      await held;
    });
    await inside;
    const waiting = PostgresStore.open(one.location.databaseUrl!);
    try {
      let done = false;
      const second = load(waiting, leads.slice(0, 1)).then((summary) => {
        done = true;
        return summary;
      });
      // The other store's import runs to its end meanwhile.
      const elsewhere = await load(other.store, leads.slice(0, 1));
      assert.equal(elsewhere.newLeads, 1);
      await sleep(300);
      assert.equal(done, false, 'the second import into the same store ran while the first held its turn');
      release();
      await first;
      const summary = await second;
      assert.equal(summary.leads, 1);
    } finally {
      release();
      await waiting.close();
    }
  });
});
