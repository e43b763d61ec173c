import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { listAudit } from '../../src/audit/list-audit.js';
import { eraseData } from '../../src/privacy/erase.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 40 item 7: migration 13 (the audit log) upgrades a store left at schema version 12 on
 * each engine: the table is there and empty, an erasure then writes its one record, and a
 * record appended after it reads back newest first.
 */
const TEAM = 4131;
const MEMBER = 41311;
const UUID = '018bcfe5-6800-7000-8000-000000000131';

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.equal(report.from, 12);
  assert.equal(report.applied[0], '13-audit-log');
  const operator = { operator: { teamId: TEAM } };
  const page = () => listAudit(store, operator, { before: null, limit: 10 });
  assert.deepEqual((await page()).records, [], 'an upgraded store starts with an empty log');
  const receipt = await eraseData(store, { by: operator, leadIds: [UUID], now: 5_000 });
  await store.audit.record({
    at: 6_000,
    teamId: TEAM,
    actor: { via: 'server' },
    action: 'retention.run',
    details: {},
  });
  const { records } = await page();
  assert.deepEqual(
    records.map((r) => [r.action, r.actor, r.details.erasureId ?? null]),
    [
      ['retention.run', { via: 'server' }, null],
      ['lead.erased', { via: 'operator' }, receipt.id],
    ],
  );
  assert.ok(records[0]!.id > records[1]!.id, 'ids increase');
}

describe('audit log: a store written before migration 13', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-audit-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      12,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'o@old.test', 'admin', 'p')",
        ).run(MEMBER, TEAM);
        db.prepare(`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind,
          location_shared, fields, uuid, created_at, source, pos) VALUES (?, ?, 'old-0', 1000, 't', 'p', 'connection', 0,
          '{"name":"Old Lead","isLead":true}', ?, 0, 'PROFILE_CONNECTION', 1)`).run(TEAM, MEMBER, UUID);
        db.prepare('UPDATE feed_clock SET pos = 1').run();
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
        await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
            fields, uuid, created_at) VALUES (${TEAM}, ${MEMBER}, 'old-0', 1000, 't', 'p', 'connection',
            false, '{"name":"Old Lead","isLead":true}', ${UUID}, 0)`;
      },
      checkUpgraded,
    );
  });
});
