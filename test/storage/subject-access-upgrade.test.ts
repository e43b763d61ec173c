import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 40 item 5: migration 11 (webhook_events_lead, docs/privacy.md "Subject access") upgrades
 * a store left at schema version 10 on each engine, and the deliveries of events written before
 * it are found by their lead.
 */
const ENDPOINT = '018bcfe5-6800-7000-8000-0000000000e1';
const EVENT = '018bcfe5-6800-7000-8000-0000000000f1';
/** The same literal SQL on both engines: a team, an endpoint, an event about lead 7, its delivery. */
const SEED = `
  INSERT INTO teams (id, name) VALUES (4011, 'Old');
  INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, created_at, updated_at)
    VALUES ('${ENDPOINT}', 4011, 'https://old.example.org/hook?t=1', '["lead.created"]', 's', 1, 1);
  INSERT INTO webhook_events (id, team_id, type, lead_seq, created_at, dispatched_at)
    VALUES ('${EVENT}', 4011, 'lead.created', 7, 2, 3);
  INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at, state, attempts)
    VALUES ('${EVENT}', '${ENDPOINT}', 4011, 'lead.created', '{}', 3, 'failed', 8);
`;

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.deepEqual([report.from, report.applied[0]], [10, '11-webhook-events-by-lead']);
  const found = await store.privacy.deliveriesOfLeads(4011, [7]);
  assert.deepEqual(
    found.map((d) => [
      d.leadSeq,
      d.eventId,
      d.endpointId,
      d.endpointUrl,
      d.state,
      d.attempts,
      d.lastAttemptAt,
    ]),
    [[7, EVENT, ENDPOINT, 'https://old.example.org/hook?t=1', 'failed', 8, null]],
  );
  assert.deepEqual(await store.privacy.deliveriesOfLeads(4012, [7]), []);
}

describe('subject access: a store written before migration 11', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-access-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(join(dir, 'old.db'), 10, (db) => db.exec(SEED), checkUpgraded);
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      10,
      async (sql) => {
        await sql.unsafe(SEED);
      },
      checkUpgraded,
    );
  });
});
