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
    await oldSqliteStore(
      join(dir, 'old.db'),
      8,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
            subteam_ids, enabled, secret, created_at, updated_at)
          VALUES (?, ?, 'https://hooks.example.com/old', NULL, '["lead.created"]', NULL, NULL, 1, 'whsec_x', ?, ?)`).run(
          OLD,
          TEAM,
          NOW,
          NOW,
        );
      },
      async (store) => {
        const report = await store.migrate();
        assert.deepEqual([report.from, report.applied[0]], [8, '9-webhook-endpoint-creator']);
        await checkUpgraded(store);
      },
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      8,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO webhook_endpoints (id, team_id, url, description, event_types, member_ids,
            subteam_ids, enabled, secret, created_at, updated_at)
          VALUES (${OLD}, ${TEAM}, 'https://hooks.example.com/old', NULL, '["lead.created"]', NULL, NULL, true,
            'whsec_x', ${NOW}, ${NOW})`;
      },
      async (store) => {
        const report = await store.migrate();
        assert.deepEqual([report.from, report.applied[0]], [8, '9-webhook-endpoint-creator']);
        await checkUpgraded(store);
      },
    );
  });
});
