import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { eraseData } from '../../src/privacy/erase.js';
import { RECLAIM_QUIET_MS } from '../../src/storage/postgres/erasure.js';
import type { Store } from '../../src/store.js';
import { bulkInsertLeads } from '../support/bulk-leads.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * Issue 40's bar "a concurrent getLastLead's p99 during the erasure within 2× its unloaded p99"
 * (bench/erasure-load.ts measures it over HTTP): an erasure of many leads does not hold the
 * thread that serves — a read sent while it runs is answered before it ends, and sees the store
 * as it was until the erasure commits. On SQLite the erasure runs on the store's erasure thread
 * (src/storage/sqlite/erasure-thread.ts); on PostgreSQL in the database.
 */
const TEAM = 60;

/** The nice value of each of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended while we read
    }
  });
}
const ADMIN = 601;
const LEADS = 2_000;

for (const engine of enginesUnderTest()) {
  describe(`an erasure alongside reads [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Alongside' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'a@c.test', pid: 'pa', role: 'admin' },
        ...Array.from({ length: LEADS + 501 }, (_, i) => ({
          type: 'lead',
          userId: ADMIN,
          id: `l${i}`,
          epoch: 1_700_000_000_000 + i,
          isLead: true,
          name: `Lead ${i}`,
          company: 'Kept Or Not',
        })),
      ]);
    });
    after(() => made.cleanup());

    test('a read sent during an erasure of 2,000 leads is answered before it ends, from before it', async () => {
      const ids: string[] = [];
      for await (const b of store.leads.scan({ teamId: TEAM }, 500)) ids.push(...b.map((l) => l.uuid));
      const newest = ids.at(-1)!;
      const erased = ids.slice(0, LEADS);
      let ended = false;
      const erasing = eraseData(store, {
        by: { operator: { teamId: TEAM } },
        leadIds: erased,
        now: Date.now(),
      }).finally(() => {
        ended = true;
      });
      // Whatever the erasure does on this thread before it waits has run by now.
      await new Promise((r) => setImmediate(r));
      const first = await store.leads.byUuid({ teamId: TEAM }, erased[0]!);
      const kept = await store.leads.byUuid({ teamId: TEAM }, newest);
      const answeredDuring = !ended;
      const receipt = await erasing;
      assert.equal(answeredDuring, true, 'the reads waited for the erasure to end');
      assert.equal(first?.uuid, erased[0], 'a read during the erasure sees the store from before it');
      assert.equal(kept?.uuid, newest);
      assert.equal(receipt.counts.leads, LEADS);
      assert.equal(await store.leads.byUuid({ teamId: TEAM }, erased[0]!), null);
      assert.notEqual(await store.leads.byUuid({ teamId: TEAM }, newest), null);
    });

    // SQLite's erasure thread, and Linux's nice values per thread (what CI runs on).
    if (engine === 'sqlite' && process.platform === 'linux')
      test('the erasure thread gives way to the serving thread: it runs at the lowest priority', async () => {
        const fresh = await makeEngineStore('sqlite');
        try {
          await load(fresh.store, [
            { type: 'team', id: TEAM, name: 'Alongside' },
            { type: 'member', id: ADMIN, teamId: TEAM, email: 'a@c.test', pid: 'pa', role: 'admin' },
            { type: 'lead', userId: ADMIN, id: 'x', epoch: 1_700_000_000_000, isLead: true, name: 'X' },
          ]);
          const lowest = () => threadNices().filter((n) => n === 19).length;
          const before = lowest();
          const [lead] = (await fresh.store.leads.changes({ teamId: TEAM }, null, 1)).leads;
          await eraseData(fresh.store, {
            by: { operator: { teamId: TEAM } },
            leadIds: [lead!.uuid],
            now: Date.now(),
          });
          assert.equal(lowest(), before + 1, 'one more thread at nice 19: the erasure thread');
        } finally {
          await fresh.cleanup();
        }
      });

    test("the usage ledger's write during an erasure waits without holding the thread, then is stored", async () => {
      const ids: string[] = [];
      for await (const b of store.leads.scan({ teamId: TEAM }, 500)) ids.push(...b.map((l) => l.uuid));
      assert.ok(ids.length >= 500, 'leads left to erase');
      let ended = false;
      const erasing = eraseData(store, {
        by: { operator: { teamId: TEAM } },
        leadIds: ids.slice(0, 500),
        now: Date.now(),
      }).finally(() => {
        ended = true;
      });
      await new Promise((r) => setImmediate(r));
      const row = { keyId: 9, api: 'v1' as const, operation: 'getLastLead', day: '2026-11-29', status: 200 };
      const writing = store.retirement.addUsage([
        { ...row, count: 3, firstSeen: 1, lastSeen: 2, userAgent: null },
      ]);
      // Had the write waited for the lock on this thread, the erasure's answer would be in first.
      await new Promise((r) => setImmediate(r));
      const loopTurnedDuring = !ended;
      await Promise.all([erasing, writing]);
      assert.equal(loopTurnedDuring, true, 'the ledger write held the thread until the erasure ended');
      const stored = (await store.retirement.usage('2026-11-29')).filter((u) => u.keyId === 9);
      assert.deepEqual(
        stored.map((u) => u.count),
        [3],
      );
    });

    test('reclaims asked for close together share one VACUUM; one asked after it runs its own', async () => {
      const url = made.location.databaseUrl;
      const sql = url === null ? null : postgres(url, { max: 1, onnotice: () => {} });
      const vacuums = async () => {
        if (sql === null) return 0;
        const [r] = await sql<{ n: number }[]>`SELECT vacuum_count::int AS n FROM pg_stat_user_tables
          WHERE schemaname = current_schema() AND relname = 'idempotency_keys'`;
        return r?.n ?? 0;
      };
      try {
        const before = await vacuums();
        const asked = Array.from({ length: 6 }, () => store.erasures.reclaim());
        // Erasures back to back: each one's reclaim comes within the quiet period of the last.
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, RECLAIM_QUIET_MS / 3));
          asked.push(store.erasures.reclaim());
        }
        await Promise.all(asked);
        if (sql !== null) assert.equal((await vacuums()) - before, 1, 'VACUUMs for 9 reclaims');
        await store.erasures.reclaim();
        if (sql !== null) assert.equal((await vacuums()) - before, 2);
      } finally {
        await sql?.end();
      }
    });

    // PostgreSQL's VACUUM, paced: its waits show in pg_stat_activity as the `VacuumDelay` event.
    if (engine === 'postgres')
      test('the VACUUM after an erasure is paced as autovacuum is: it sleeps between its pages', async () => {
        const fresh = await makeEngineStore('postgres');
        const sql = postgres(fresh.location.databaseUrl!, { max: 1, onnotice: () => {} });
        try {
          await load(fresh.store, [
            { type: 'team', id: 1, name: 'Paced' },
            { type: 'member', id: 11, teamId: 1, email: 'p@c.test', pid: 'pp', role: 'admin' },
          ]);
          await bulkInsertLeads(fresh.location, 11, 20_000);
          // Read by scan, not from the change feed: on PostgreSQL the feed holds a lead back while
          // any older transaction on the server is open (other test files' included).
          let lead: { uuid: string } | undefined;
          for await (const batch of fresh.store.leads.scan({ teamId: 1 }, 1)) {
            lead = batch[0];
            break;
          }
          await eraseData(fresh.store, {
            by: { operator: { teamId: 1 } },
            leadIds: [lead!.uuid],
            now: Date.now(),
          });
          let ended = false;
          const reclaiming = fresh.store.erasures.reclaim().finally(() => {
            ended = true;
          });
          let delays = 0;
          while (!ended) {
            const [r] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_progress_vacuum p
              JOIN pg_class c ON c.oid = p.relid JOIN pg_namespace s ON s.oid = c.relnamespace
              JOIN pg_stat_activity a ON a.pid = p.pid
              WHERE s.nspname = current_schema() AND a.wait_event = 'VacuumDelay'`;
            delays += r!.n;
          }
          await reclaiming;
          assert.ok(delays > 0, 'the VACUUM never waited on VacuumDelay: it ran unpaced');
        } finally {
          await sql.end();
          await fresh.cleanup();
        }
      });
  });
}
