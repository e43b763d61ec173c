import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { feedEntryToV2 } from '../../src/leads/v2-wire.js';
import { eraseData } from '../../src/privacy/erase.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 40: migration 12 (erasure) upgrades a store left at schema version 10 on each engine:
 * its leads stay readable and unerased, and one can then be erased by id — a tombstone at the
 * end of the feed, gone from every other read — with a receipt kept in the new table.
 */
const TEAM = 4091;
const MEMBER = 40911;
const UUIDS = ['018bcfe5-6800-7000-8000-000000000021', '018bcfe5-6800-7000-8000-000000000022'];

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  // Later migrations follow these two.
  assert.deepEqual(
    [report.from, report.applied.slice(0, 2)],
    [10, ['11-webhook-events-by-lead', '12-erasure']],
  );
  const feed = await store.leads.changes({ teamId: TEAM }, null, 10);
  assert.deepEqual(
    feed.leads.map((l) => [l.uuid, l.erased]),
    UUIDS.map((u) => [u, false]),
  );
  const receipt = await eraseData(store, {
    by: { operator: { teamId: TEAM } },
    leadIds: [UUIDS[0]!],
    now: Date.now(),
  });
  assert.equal(receipt.counts.leads, 1);
  assert.deepEqual(await store.erasures.receipt(receipt.id), receipt);
  let moved: unknown[] = [];
  for (let i = 0; i < 50 && moved.length === 0; i++) {
    moved = (await store.leads.changes({ teamId: TEAM }, feed.next, 10)).leads.map(feedEntryToV2);
    if (moved.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(moved, [{ leadId: UUIDS[0], erased: true }]);
  assert.equal(await store.leads.byUuid({ teamId: TEAM }, UUIDS[0]!), null);
  assert.equal(
    (await store.leads.byUuid({ teamId: TEAM }, UUIDS[1]!))?.fields,
    '{"name":"Old Lead","isLead":true}',
  );
  assert.equal((await store.leads.lastOfTeam(TEAM))?.uuid, UUIDS[1]);
}

describe('erasure: a store written before migration 12', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-erasure-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      10,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'o@old.test', 'admin', 'p')",
        ).run(MEMBER, TEAM);
        const insert =
          db.prepare(`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind,
          location_shared, fields, uuid, created_at, source, pos) VALUES (?, ?, ?, ?, 't', 'p', 'connection', 0, ?, ?, 0,
          'PROFILE_CONNECTION', ?)`);
        UUIDS.forEach((u, i) => {
          insert.run(TEAM, MEMBER, `old-${i}`, 1000 + i, '{"name":"Old Lead","isLead":true}', u, i + 1);
        });
        db.prepare('UPDATE feed_clock SET pos = 2').run();
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      10,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO members (id, team_id, email, role, pid) VALUES (${MEMBER}, ${TEAM}, 'o@old.test', 'admin', 'p')`;
        for (const [i, u] of UUIDS.entries())
          await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
            fields, uuid, created_at) VALUES (${TEAM}, ${MEMBER}, ${`old-${i}`}, ${1000 + i}, 't', 'p', 'connection',
            false, '{"name":"Old Lead","isLead":true}', ${u}, 0)`;
      },
      checkUpgraded,
    );
  });
});
