import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createSignInLink, openSession, resumeSession } from '../../src/console/sign-in.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 15: migration 7 (console sign-in links and sessions) upgrades a store that leadline left
 * at the version before it, on each engine: its teams, members and keys stay, and its team
 * admins can be signed in to the console afterwards.
 */
const TEAM = 1570;
const ADMIN = 15701;
const NOW = 1_790_000_000_000;
const engines = enginesUnderTest();

async function checkUpgraded(store: Store): Promise<void> {
  const keys = await store.keys.list(ADMIN);
  assert.deepEqual(
    keys.map((k) => [k.display, k.label]),
    [['llk_OLDKEY00', 'before the console']],
  );
  const link = await createSignInLink(store, ADMIN, NOW);
  const session = await openSession(store, link.token, NOW);
  assert.ok(session !== null);
  const subject = await resumeSession(store, session, NOW + 1, { maxMs: 3_600_000 });
  assert.equal(subject?.kind === 'team-admin' ? subject.member.teamId : null, TEAM);
}

describe('console: a store written before migration 7', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-console-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    let before = 0;
    await oldSqliteStore(
      join(dir, 'old.db'),
      6,
      (db) => {
        before = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number }).v;
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'old-admin@console.test', 'admin', 'p')",
        ).run(ADMIN, TEAM);
        db.prepare(
          `INSERT INTO api_keys (member_id, display, hash, label, created_at, legacy_v1)
           VALUES (?, 'llk_OLDKEY00', ?, 'before the console', ?, 0)`,
        ).run(ADMIN, randomBytes(32), NOW - 86_400_000);
      },
      async (store) => {
        const report = await store.migrate();
        assert.equal(report.from, before);
        assert.ok(report.applied.includes('7-console-sessions'), report.applied.join(', '));
        await checkUpgraded(store);
      },
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    let before = 0;
    await oldPostgresStore(
      6,
      async (sql) => {
        [{ v: before } = { v: 0 }] = await sql<
          { v: number }[]
        >`SELECT max(version) AS v FROM schema_migrations`;
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO members (id, team_id, email, role, pid) VALUES (${ADMIN}, ${TEAM}, 'old-admin@console.test', 'admin', 'p')`;
        await sql`INSERT INTO api_keys (member_id, display, hash, label, created_at, legacy_v1)
          VALUES (${ADMIN}, 'llk_OLDKEY00', ${randomBytes(32)}, 'before the console', ${NOW - 86_400_000}, false)`;
      },
      async (store) => {
        const report = await store.migrate();
        assert.equal(report.from, before);
        assert.ok(report.applied.includes('7-console-sessions'), report.applied.join(', '));
        await checkUpgraded(store);
      },
    );
  });
});
