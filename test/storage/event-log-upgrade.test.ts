import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually } from '../support/helpers.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 41 §1: migration 18 (event-log) upgrades a store left at schema version 17 on each engine:
 * the outbox's events stay, in their order, ahead of the new ones; a team-level event (no lead)
 * can be written; the retention prunes a prefix and keeps the horizon.
 */
const TEAM = 4161;
const ENDPOINT = '018bcfe5-6800-7000-8000-0000000001a6';
const OLD_EVENTS = ['018bcfe5-6800-7000-8000-0000000001e1', '018bcfe5-6800-7000-8000-0000000001e2'];

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.equal(report.from, 17);
  assert.ok(report.applied.includes('18-event-log'), report.applied.join());
  const now = Date.now();
  // The team's log, team-level events included, from `after` (null: its start).
  const logPage = (after: string | null, limit: number) =>
    store.webhooks.log({ scope: { teamId: TEAM }, teamEvents: true, types: null, after, limit });
  const testId = await store.deliveries.sendTest({ teamId: TEAM }, ENDPOINT, now);
  assert.ok(testId !== null, 'a webhook.test is logged: lead_seq may be null now');
  const events = await store.webhooks.events(TEAM, 0, 10);
  assert.deepEqual(
    events.map((e) => e.id),
    [...OLD_EVENTS, testId],
    'the old events kept, in order, before the new one',
  );
  // The log shows settled transactions only: on PostgreSQL, a transaction of a test running
  // beside this one (the database is shared) can hide the new event for a moment.
  const log = await eventually(async () => {
    const page = await logPage(null, 10);
    assert.deepEqual(
      page.events.map((e) => [e.type, JSON.parse(e.body!).data.endpointId]),
      [['webhook.test', ENDPOINT]],
    );
    return page;
  });
  // The old events were dispatched long ago: pruned; the test event's delivery waits: kept.
  await store.deliveries.expire(0, now, now + 1);
  assert.deepEqual(
    (await store.webhooks.events(TEAM, 0, 10)).map((e) => e.id),
    [testId],
  );
  const first = await logPage(null, 1);
  const behind = await logPage(log.next.includes(':') ? '0:0' : '0', 10);
  assert.equal(behind.expired, true, 'a position behind the pruned events is expired');
  assert.equal(first.expired, false);
}

const ENDPOINT_ROW = `INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, created_at, updated_at)
  VALUES ('${ENDPOINT}', ${TEAM}, 'https://receiver.example/hooks', '["lead.created"]', 'whsec_test', 0, 0)`;
const EVENT_ROWS = `INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, dispatched_at)
  VALUES ('${OLD_EVENTS[0]}', ${TEAM}, 'lead.created', 1, 1000, 1001),
    ('${OLD_EVENTS[1]}', ${TEAM}, 'lead.created', 2, 2000, 2001)`;

describe('event log: a store written before migration 18', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-event-log-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      17,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.exec(`${ENDPOINT_ROW}; ${EVENT_ROWS}`);
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      17,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql.unsafe(ENDPOINT_ROW);
        await sql.unsafe(EVENT_ROWS);
      },
      checkUpgraded,
    );
  });
});
