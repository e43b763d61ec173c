import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { migrate as migratePg } from '../../src/storage/postgres/migrations.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { migrate as migrateSqlite } from '../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, schemaUrl, testDatabaseUrl } from '../support/engines.js';

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
    const path = join(dir, 'old.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    migrateSqlite(db, 7);
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
    db.close();
    const store = SqliteStore.open(path);
    try {
      const report = await store.migrate();
      assert.deepEqual([report.from, report.applied[0]], [7, '8-webhook-deliveries-by-team']);
      await checkUpgraded(store);
    } finally {
      await store.close();
    }
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    const url = testDatabaseUrl()!;
    const schema = `lt_${randomBytes(6).toString('hex')}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const sql = postgres(schemaUrl(url, schema), { max: 1, onnotice: () => {} });
    let store: PostgresStore | null = null;
    try {
      await migratePg(sql, 7);
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
      await sql.end();
      store = PostgresStore.open(schemaUrl(url, schema));
      const report = await store.migrate();
      assert.deepEqual([report.from, report.applied[0]], [7, '8-webhook-deliveries-by-team']);
      await checkUpgraded(store);
    } finally {
      await store?.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
