import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { updateLead } from '../../src/leads/update-lead.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually } from '../support/helpers.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 39: migration 10 (leads that change) upgrades a store left at schema version 9 on each
 * engine: its leads keep their values and their place in the change feed (a cursor issued
 * before still continues after them), start at version 1, unmerged; a change then moves a lead
 * to the end of the feed.
 */
const TEAM = 3991;
const MEMBER = 39911;
const UUIDS = ['018bcfe5-6800-7000-8000-000000000011', '018bcfe5-6800-7000-8000-000000000012'];

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.deepEqual([report.from, report.applied[0]], [9, '10-lead-changes']);
  // PostgreSQL's feed holds back positions another session may still commit below (tests run
  // side by side on one database): read until the upgraded leads show, as a follower would.
  const feed = await eventually(async () => {
    const page = await store.leads.changes({ teamId: TEAM }, null, 10);
    assert.deepEqual(
      page.leads.map((l) => [l.uuid, l.version, l.mergedInto, l.changedVia]),
      UUIDS.map((u) => [u, 1, null, null]),
    );
    return page;
  });
  const afterFirst = (await store.leads.changes({ teamId: TEAM }, null, 1)).next;
  assert.deepEqual(
    (await store.leads.changes({ teamId: TEAM }, afterFirst, 10)).leads.map((l) => l.uuid),
    [UUIDS[1]],
  );
  const { lead } = await updateLead(store, {
    by: { operator: { teamId: TEAM } },
    leadId: UUIDS[0]!,
    patch: { systemFields: { note: 'after the upgrade' } },
    source: 'cli',
    now: Date.now(),
  });
  assert.equal(lead.version, 2);
  await eventually(async () =>
    assert.deepEqual(
      (await store.leads.changes({ teamId: TEAM }, feed.next, 10)).leads.map((l) => l.uuid),
      [UUIDS[0]],
    ),
  );
  assert.equal((await store.leads.lastOfMember(TEAM, MEMBER))?.uuid, UUIDS[1]);
}

describe('lead changes: a store written before migration 10', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-changes-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      9,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'o@old.test', 'admin', 'p')",
        ).run(MEMBER, TEAM);
        const insert =
          db.prepare(`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind,
          location_shared, fields, uuid, created_at, source) VALUES (?, ?, ?, ?, 't', 'p', 'connection', 0, ?, ?, 0,
          'PROFILE_CONNECTION')`);
        UUIDS.forEach((u, i) => {
          insert.run(TEAM, MEMBER, `old-${i}`, 1000 + i, '{"name":"Old Lead","isLead":true}', u);
        });
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      9,
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
