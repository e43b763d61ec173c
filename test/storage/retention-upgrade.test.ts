import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setRetention } from '../../src/retention/policy.js';
import { runRetention } from '../../src/retention/run.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 40: migration 14 (retention) upgrades a store left at schema version 12 on each engine:
 * a receipt written before it reads as it did; a policy can be set, and its run erases the old
 * lead with a receipt requested by the policy, which the rebuilt (SQLite) or widened (PostgreSQL)
 * erasures table now accepts.
 */
const TEAM = 4141;
const MEMBER = 41411;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);
const UUIDS = ['018bcfe5-6800-7000-8000-000000000031', '018bcfe5-6800-7000-8000-000000000032'];
const RECEIPT = '018bcfe5-6800-7000-8000-0000000000e1';
const COUNTS =
  '{"leads":1,"mergedLeads":0,"searchRows":1,"webhookEvents":0,"webhookDeliveries":0,"webhookAttempts":0,"idempotencyKeys":0}';

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.equal(report.from, 12);
  assert.ok(report.applied.includes('14-retention'), report.applied.join(', '));
  const old = await store.erasures.receipt(RECEIPT);
  assert.deepEqual([old?.requestedBy, old?.teamId, old?.counts.leads], [{ via: 'operator' }, TEAM, 1]);
  await setRetention(store, { teamId: TEAM, days: 30, now: NOW, actor: { via: 'operator' } });
  const run = await runRetention(store, {
    dryRun: false,
    now: NOW,
    by: { via: 'operator' },
    receiptDays: 1095,
  });
  assert.deepEqual(
    run.teams.map((t) => [t.teamId, t.due, t.erased]),
    [[TEAM, 1, 1]],
  );
  const receipt = await store.erasures.receipt(run.teams[0]!.erasureIds[0]!);
  assert.deepEqual(receipt?.requestedBy, { via: 'retention', days: 30 });
  assert.equal(await store.leads.byUuid({ teamId: TEAM }, UUIDS[0]!), null);
  assert.notEqual(await store.leads.byUuid({ teamId: TEAM }, UUIDS[1]!), null);
}

describe('retention: a store written before migration 14', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-retention-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // The first lead was captured 400 days before NOW, the second yesterday.
  const epochs = [NOW - 400 * DAY, NOW - DAY];

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      12,
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
          insert.run(TEAM, MEMBER, `old-${i}`, epochs[i], '{"name":"Old Lead","isLead":true}', u, i + 1);
        });
        db.prepare('UPDATE feed_clock SET pos = 2').run();
        db.prepare(`INSERT INTO erasures (id, team_id, requested_via, requested_at, lead_ids, counts)
          VALUES (?, ?, 'operator', ?, 1, ?)`).run(RECEIPT, TEAM, NOW - DAY, COUNTS);
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      12,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO members (id, team_id, email, role, pid) VALUES (${MEMBER}, ${TEAM}, 'o@old.test', 'admin', 'p')`;
        for (const [i, u] of UUIDS.entries())
          await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
            fields, uuid, created_at) VALUES (${TEAM}, ${MEMBER}, ${`old-${i}`}, ${epochs[i]!}, 't', 'p', 'connection',
            false, '{"name":"Old Lead","isLead":true}', ${u}, 0)`;
        await sql`INSERT INTO erasures (id, team_id, requested_via, requested_at, lead_ids, counts)
          VALUES (${RECEIPT}, ${TEAM}, 'operator', ${NOW - DAY}, 1, ${COUNTS})`;
      },
      checkUpgraded,
    );
  });
});
