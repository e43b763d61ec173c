import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 36: migration 8 (pending deliveries indexed by team and due time, for the fair claim)
 * upgrades a store left at schema version 7 with deliveries waiting, on each engine: they are
 * claimed afterwards, shared between the teams — the older team's backlog does not stand in
 * front of the other's delivery.
 */
const [A, B] = [3651, 3652];
const NOW = 1_790_000_000_000;
const ENDPOINT: Record<number, string> = { [A]: randomUUID(), [B]: randomUUID() };
/** Rows as leadline at version 7 wrote them: A's five deliveries older than B's one. */
const rows = () => [
  ...[1, 2, 3, 4, 5].map((i) => ({ team: A, event: randomUUID(), at: NOW - 10_000 + i })),
  { team: B, event: randomUUID(), at: NOW - 1_000 },
];

async function checkUpgraded(store: Store): Promise<void> {
  const claimed = await store.deliveries.claim(4, NOW, { perTeam: 2, held: new Map() });
  assert.deepEqual(claimed.map((d) => [d.teamId, d.endpointId]).sort(), [
    [A, ENDPOINT[A]],
    [A, ENDPOINT[A]],
    [B, ENDPOINT[B]],
  ]);
}

describe('webhook deliveries: a store written before migration 8', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-delivery-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      7,
      (db) => {
        for (const t of [A, B]) {
          db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(t);
          db.prepare(`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
              subteam_ids, enabled, secret, created_at, updated_at)
            VALUES (?, ?, 'http://127.0.0.1:9/old', NULL, '["lead.created"]', NULL, NULL, 1, 'whsec_x', ?, ?)`).run(
            ENDPOINT[t],
            t,
            NOW - 86_400_000,
            NOW - 86_400_000,
          );
        }
        for (const r of rows())
          db.prepare(`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at,
              state, attempts, next_attempt_at) VALUES (?, ?, ?, 'lead.created', '{}', ?, 'pending', 0, ?)`).run(
            r.event,
            ENDPOINT[r.team],
            r.team,
            r.at,
            r.at,
          );
      },
      async (store) => {
        const report = await store.migrate();
        assert.deepEqual([report.from, report.applied[0]], [7, '8-webhook-deliveries-by-team']);
        await checkUpgraded(store);
      },
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      7,
      async (sql) => {
        for (const t of [A, B]) {
          await sql`INSERT INTO teams (id, name) VALUES (${t}, 'Old')`;
          await sql`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
              subteam_ids, enabled, secret, created_at, updated_at)
            VALUES (${ENDPOINT[t]!}, ${t}, 'http://127.0.0.1:9/old', NULL, '["lead.created"]', NULL, NULL, true,
              'whsec_x', ${NOW - 86_400_000}, ${NOW - 86_400_000})`;
        }
        for (const r of rows())
          await sql`INSERT INTO webhook_deliveries (event_id, endpoint_id, team_id, type, payload, created_at,
              state, attempts, next_attempt_at)
            VALUES (${r.event}, ${ENDPOINT[r.team]!}, ${r.team}, 'lead.created', '{}', ${r.at}, 'pending', 0, ${r.at})`;
      },
      async (store) => {
        const report = await store.migrate();
        assert.deepEqual([report.from, report.applied[0]], [7, '8-webhook-deliveries-by-team']);
        await checkUpgraded(store);
      },
    );
  });
});
