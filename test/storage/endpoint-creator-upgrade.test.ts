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
 * Issue 36: migration 9 (who created an endpoint) upgrades a store left at schema version 8,
 * on each engine: its endpoints are kept, as they were, with their creator unknown (null), and
 * an endpoint added afterwards records its creator.
 */
const TEAM = 3661;
const NOW = 1_790_000_000_000;
const OLD = randomUUID();

async function checkUpgraded(store: Store): Promise<void> {
  const [old] = await store.webhooks.endpoints(TEAM);
  assert.equal(old?.id, OLD);
  assert.deepEqual(
    [old!.url, old!.enabled, old!.eventTypes, old!.createdBy, old!.createdAt],
    ['https://hooks.example.com/old', true, ['lead.created'], null, NOW],
  );
  const added = await store.webhooks.addEndpoint({
    teamId: TEAM,
    url: 'https://hooks.example.com/new',
    description: null,
    eventTypes: ['lead.created'],
    members: null,
    subteams: null,
    secret: 'whsec_y',
    createdBy: { via: 'cli', memberId: null, keyId: null },
    createdAt: NOW + 1,
  });
  assert.deepEqual(added.createdBy, {
    via: 'cli',
    memberId: null,
    keyId: null,
    memberRemoved: false,
    keyRevoked: false,
  });
}

describe('webhook endpoints: a store written before migration 9', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-creator-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    migrateSqlite(db, 8);
    db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
    db.prepare(`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
        subteam_ids, enabled, secret, created_at, updated_at)
      VALUES (?, ?, 'https://hooks.example.com/old', NULL, '["lead.created"]', NULL, NULL, 1, 'whsec_x', ?, ?)`).run(
      OLD,
      TEAM,
      NOW,
      NOW,
    );
    db.close();
    const store = SqliteStore.open(path);
    try {
      const report = await store.migrate();
      assert.deepEqual([report.from, report.applied.at(-1)], [8, '9-webhook-endpoint-creator']);
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
      await migratePg(sql, 8);
      await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
      await sql`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
          subteam_ids, enabled, secret, created_at, updated_at)
        VALUES (${OLD}, ${TEAM}, 'https://hooks.example.com/old', NULL, '["lead.created"]', NULL, NULL, true,
          'whsec_x', ${NOW}, ${NOW})`;
      await sql.end();
      store = PostgresStore.open(schemaUrl(url, schema));
      const report = await store.migrate();
      assert.deepEqual([report.from, report.applied.at(-1)], [8, '9-webhook-endpoint-creator']);
      await checkUpgraded(store);
    } finally {
      await store?.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
