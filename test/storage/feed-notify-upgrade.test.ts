import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import postgres from 'postgres';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, testDatabaseUrl } from '../support/engines.js';
import { eventually } from '../support/helpers.js';
import { newLeadOf } from './new-lead.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 41 §2: migration 16 (feed-notify) upgrades a store left at schema version 15 on each
 * engine — PostgreSQL gains the triggers that announce new leads on leadline_feed, SQLite keeps
 * its schema (its waiters poll the feed clock) — and a watch on the upgraded store wakes when a
 * lead is stored, and not before.
 */
const TEAM = 4161;
const MEMBER = 41611;

async function checkUpgraded(store: Store): Promise<void> {
  const report = await store.migrate();
  assert.equal(report.from, 15);
  assert.equal(report.applied[0], '16-feed-notify');
  // PostgreSQL: the notification itself, heard on a connection of the test's own (channels are
  // database-wide) — the store's watch alone would also wake on its once-a-second fallback.
  const heard: string[] = [];
  const listener =
    store.engine === 'postgres' ? postgres(testDatabaseUrl()!, { max: 1, onnotice: () => {} }) : null;
  const subscription = await listener?.listen('leadline_feed', (payload) => heard.push(payload));
  const watch = await store.feed.watch(TEAM);
  try {
    const fields = { name: 'Up Graded', isLead: true, apptoapp: false, isManual: false };
    const created = await store.leads.create(
      newLeadOf({
        teamId: TEAM,
        memberId: MEMBER,
        id: null,
        epoch: 1000,
        fields,
        source: 'MANUAL',
        firstName: 'Up',
        lastName: 'Graded',
      }),
      null,
    );
    assert.equal(created.kind, 'created');
    // Generous: the wake-up comes with the next poll (SQLite, which has no other wake-up).
    assert.equal(await watch.next(20_000), true);
    if (listener !== null)
      await eventually(async () => assert.ok(heard.includes(String(TEAM)), heard.join()));
  } finally {
    watch.close();
    await subscription?.unlisten();
    await listener?.end();
  }
  assert.equal(store.feed.waiting(), 0);
}

describe('feed signal: a store written before migration 16', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-feed-notify-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      15,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'o@old.test', 'admin', 'p')",
        ).run(MEMBER, TEAM);
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      15,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO members (id, team_id, email, role, pid) VALUES (${MEMBER}, ${TEAM}, 'o@old.test', 'admin', 'p')`;
      },
      checkUpgraded,
    );
  });
});
