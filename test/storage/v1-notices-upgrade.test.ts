import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sendV1UsageNotices } from '../../src/retirement/send-v1-usage.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 42 §3: migration 15 (v1-notices) upgrades a store left at schema version 12 on each
 * engine: the ledger's v1 calls and the endpoint it already had make a `v1.usage` notice once,
 * and the claim holds a second time.
 */
const TEAM = 4291;
const MEMBER = 42911;
const KEY = 4292;
const ENDPOINT = '018bcfe5-6800-7000-8000-0000000000a1';
const DAY = '2026-11-02';
const NOW = Date.parse('2026-11-03T01:00:00Z');

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.equal(report.from, 12);
  assert.ok(report.applied.includes('15-v1-notices'), report.applied.join());
  const send = () =>
    sendV1UsageNotices(store, {
      now: NOW,
      times: { sunsetAt: null },
      brownouts: [],
      migrationGuide: 'https://leadline.test/docs/v1-migration',
      settleMs: 0,
    });
  assert.deepEqual((await send()).sent, [{ teamId: TEAM, deliveries: 1 }]);
  assert.deepEqual((await send()).sentBefore, [TEAM]);
  const deliveries = (await store.deliveries.deliveries('operator', ENDPOINT, 10)) ?? [];
  assert.deepEqual(
    deliveries.map((d) => [d.type, d.state]),
    [['v1.usage', 'pending']],
  );
}

const USAGE = `INSERT INTO api_usage (key_id, api, operation, day, status, count, first_seen, last_seen, user_agent)
  VALUES (${KEY}, 'v1', 'getLastLead', '${DAY}', 200, 3, 0, 0, 'crm/1')`;
const ENDPOINT_ROW = `INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, created_at, updated_at)
  VALUES ('${ENDPOINT}', ${TEAM}, 'https://receiver.example/hooks', '["lead.created","v1.usage"]', 'whsec_test', 0, 0)`;

describe('v1 notices: a store written before migration 15', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-v1-notices-upgrade-'));
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
        db.prepare(
          "INSERT INTO api_keys (id, member_id, display, hash, created_at) VALUES (?, ?, 'llk_oldoldol', x'00', 0)",
        ).run(KEY, MEMBER);
        db.exec(`${USAGE}; ${ENDPOINT_ROW}`);
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
        await sql`INSERT INTO api_keys (id, member_id, display, hash, created_at)
          VALUES (${KEY}, ${MEMBER}, 'llk_oldoldol', '\\x00', 0)`;
        await sql.unsafe(USAGE);
        await sql.unsafe(ENDPOINT_ROW);
      },
      checkUpgraded,
    );
  });
});
