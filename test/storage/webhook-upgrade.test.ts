import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { NewLead } from '../../src/leads/leads.port.js';
import { leadText, searchable } from '../../src/leads/text.js';
import {
  INSERT_LEAD_TEXT,
  LEAD_INSERT,
  leadTextValues,
  leadValues,
} from '../../src/storage/sqlite/lead-writes.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { oldPostgresStore, oldSqliteStore } from './old-store.js';

/**
 * Issue 13: migrations 5 and 6 (webhook endpoints, the outbox, deliveries) upgrade a store that leadline left
 * at schema version 4, on each engine: its leads stay as they were and get no event; leads
 * stored after the upgrade into a team with an endpoint get theirs.
 */
const TEAM = 1350;
const MEMBER = 13501;
const FIELDS = { name: 'Old Lead', email: 'old@before.test', company: 'Before Ltd' };

const oldLead: NewLead = {
  teamId: TEAM,
  memberId: MEMBER,
  id: 'old-1',
  epoch: 1_700_000_000_000,
  time: '2023-11-14 22:13',
  userPid: 'p-old',
  kind: 'connection',
  locationShared: false,
  lat: null,
  long: null,
  fields: JSON.stringify(FIELDS),
  source: 'PROFILE_CONNECTION',
  firstName: null,
  lastName: null,
  ...searchable(FIELDS, { firstName: null, lastName: null }),
};
const OLD_TEXT = leadText(FIELDS, { firstName: null, lastName: null });

/** After the upgrade: the old lead unchanged and without an event; new leads get theirs. */
async function checkUpgraded(store: Store): Promise<void> {
  const last = await store.leads.lastOfTeam(TEAM);
  assert.equal(last?.id, 'old-1');
  assert.equal(last?.fields, oldLead.fields);
  assert.deepEqual(await store.webhooks.events(TEAM, 0, 100), [], 'no event for a lead stored before');
  assert.deepEqual(await store.webhooks.endpoints(TEAM), []);
  await store.webhooks.addEndpoint({
    teamId: TEAM,
    url: 'https://receiver.example/hooks',
    description: 'after the upgrade',
    eventTypes: ['lead.created'],
    members: null,
    subteams: null,
    secret: 'whsec_test',
    createdAt: Date.now(),
  });
  await load(store, [{ type: 'lead', userId: MEMBER, id: 'new-1', epoch: 1_760_000_000_000, isLead: true }]);
  const created = await store.leads.create({ ...oldLead, id: null, epoch: 1_760_000_000_001 }, null);
  assert.equal(created.kind, 'created');
  const events = await store.webhooks.events(TEAM, 0, 100);
  assert.deepEqual(
    events.map((e) => e.lead?.id),
    ['new-1', created.kind === 'created' ? created.lead.id : ''],
  );
}

const engines = enginesUnderTest();

/** The lead insert as leadline 4 to 9 wrote it (migration 10 added `pos`). */
const LEAD_INSERT_V4 = LEAD_INSERT.replace(', pos)', ')').replace(', ?)', ')');

describe('webhooks: a store written before migration 5', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-webhook-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('SQLite at version 4 is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'v4.db'),
      4,
      (db, migrated) => {
        assert.equal(migrated.to, 4);
        // The rows as leadline 4 wrote them: the same statements its import and creation use.
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(TEAM);
        db.prepare(
          "INSERT INTO members (id, team_id, email, role, pid) VALUES (?, ?, 'o@old.test', 'admin', 'p')",
        ).run(MEMBER, TEAM);
        const { seq } = db
          .prepare(`${LEAD_INSERT_V4} RETURNING seq`)
          .get(
            leadValues(oldLead, 'old-1', '018bcfe5-6800-7000-8000-000000000001', 1_700_000_000_000, 0).slice(
              0,
              -1,
            ),
          ) as {
          seq: number;
        };
        db.prepare(INSERT_LEAD_TEXT).run(leadTextValues(seq, oldLead));
      },
      async (store) => {
        const report = await store.migrate();
        // Later migrations follow; 5 is the one under test here.
        assert.deepEqual(
          [report.from, ...report.applied.slice(0, 2)],
          [4, '5-webhooks', '6-webhook-deliveries'],
        );
        await checkUpgraded(store);
      },
    );
  });

  test('PostgreSQL at version 4 is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      4,
      async (sql, migrated) => {
        assert.equal(migrated.to, 4);
        await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'Old')`;
        await sql`INSERT INTO members (id, team_id, email, role, pid) VALUES (${MEMBER}, ${TEAM}, 'o@old.test', 'admin', 'p')`;
        await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
            fields, uuid, created_at, source, has_email, text_fields, search)
          VALUES (${TEAM}, ${MEMBER}, 'old-1', ${oldLead.epoch}, ${oldLead.time}, 'p-old', 'connection', false,
            ${oldLead.fields}, gen_random_uuid(), 1700000000000, 'PROFILE_CONNECTION', true,
            ${sql.array(OLD_TEXT)}::text[], ${OLD_TEXT.join(' ')})`;
      },
      async (store) => {
        const report = await store.migrate();
        // Later migrations follow; 5 is the one under test here.
        assert.deepEqual(
          [report.from, ...report.applied.slice(0, 2)],
          [4, '5-webhooks', '6-webhook-deliveries'],
        );
        await checkUpgraded(store);
      },
    );
  });
});
