import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { LeadFilter, LeadScope } from '../../src/leads/leads.port.js';
import { UNDISPATCHED, WAITING_EVENTS } from '../../src/storage/sqlite/deliveries.js';
import { LEAD_QUERIES } from '../../src/storage/sqlite/leads.js';
import { byUuidQuery, changesQuery, searchQuery } from '../../src/storage/sqlite/search.js';
import { load, makeStore } from '../support/helpers.js';

/**
 * Issue 2 §2: every v1 operation is an index walk — the last lead of a member, a team or a
 * subteam is found without scanning the team's leads, whatever their number. Checked on the
 * query plans of the statements the store really prepares.
 */
let db: Database.Database;
let cleanup: () => Promise<void>;

before(async () => {
  const made = await makeStore();
  cleanup = made.cleanup;
  db = new Database(made.path);
  // Planner statistics as for a large team, so the plans are those a big store would get.
  db.exec('ANALYZE');
});
after(async () => {
  db.close();
  await cleanup();
});

function plan(sql: string): string[] {
  const params = (sql.match(/\?/g) ?? []).map(() => 1);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
    (r) => r.detail,
  );
}

const noFilter = (scope: LeadScope): LeadFilter => ({
  scope,
  start: null,
  end: null,
  sources: null,
  hasEmail: null,
  text: [],
});
/** v2 reads without text: the keyset walks an index in page order and stops with the page. */
const V2_QUERIES = {
  searchTeam: searchQuery(noFilter({ teamId: 1 }), 'DESC', { epoch: 1, seq: 1 }, 100).sql,
  searchTeamAsc: searchQuery({ ...noFilter({ teamId: 1 }), start: 1, end: 2 }, 'ASC', null, 100).sql,
  searchMember: searchQuery(noFilter({ teamId: 1, members: [1] }), 'DESC', { epoch: 1, seq: 1 }, 100).sql,
  changesTeam: changesQuery({ teamId: 1 }, 0, 100).sql,
  changesMember: changesQuery({ teamId: 1, members: [1] }, 0, 100).sql,
  byUuid: byUuidQuery({ teamId: 1, subteams: [1] }, 'x').sql,
};

/**
 * The plans are checked twice: on the empty store, and on one team of 1,000 members with 100,000
 * leads after ANALYZE — with those statistics SQLite's planner once preferred scanning the
 * members and sorting their leads for lastOfTeam (8 µs → 790 µs a call in process,
 * bench/sqlite-statistics.ts).
 */
/** leads' statistics as ANALYZE wrote them on a 10M-lead store (bench/grow.ts, 10,000 leads a member). */
const TEN_MILLION: Record<string, string> = {
  leads_team_pos: '10000000 10000000 1',
  leads_team_epoch: '10000000 10000000 1 1',
  leads_member_epoch: '10000000 10000000 10000 1 1',
  leads_identity: '10000000 10000000 10000 10 1',
  sqlite_autoindex_leads_1: '10000000 1',
};

for (const stats of [
  'an empty store',
  '100,000 leads of one team, analyzed',
  "100,000 leads with a 10M-lead store's statistics",
] as const)
  describe(`SQLite query plans, on ${stats}`, () => {
    before(async () => {
      if (stats === 'an empty store') return;
      db.close();
      await cleanup();
      const made = await makeStore();
      cleanup = made.cleanup;
      const members = Array.from({ length: 1000 }, (_, i) => i + 1);
      await load(made.store, [
        { type: 'team', id: 1, name: 'Big' },
        ...members.map((id) => ({ type: 'member', id, teamId: 1, email: `m${id}@big.test`, pid: `p${id}` })),
        { type: 'subteam', id: 1, teamId: 1, name: 'Half', members: members.slice(0, 500), admins: [1] },
      ]);
      db = new Database(made.path);
      db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
        INSERT INTO leads (seq, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          fields, uuid, created_at, pos)
        SELECT i, 1, 1 + (i * 7919) % 1000, 'l' || i, 1700000000000 + ((i * 104729) % 100000) * 1000, 't', 'p',
          'connection', 0, '{}', lower(hex(randomblob(16))), 0, i FROM n`).run();
      db.exec('ANALYZE');
      if (stats !== "100,000 leads with a 10M-lead store's statistics") return;
      // With these, SQLite once built a Bloom filter over `members` on every getLastLead (32 µs
      // against 6 µs a call, bench/grow.ts's 10M store).
      const set = db.prepare("UPDATE sqlite_stat1 SET stat = ? WHERE tbl = 'leads' AND idx = ?");
      for (const [idx, stat] of Object.entries(TEN_MILLION)) assert.equal(set.run(stat, idx).changes, 1, idx);
      db.exec('ANALYZE sqlite_schema'); // reloads the statistics
    });

    for (const [name, sql] of Object.entries({ ...LEAD_QUERIES, ...V2_QUERIES })) {
      test(`${name}: leads are searched through an index, never scanned or sorted`, () => {
        const steps = plan(sql);
        const leadSteps = steps.filter((d) => / (l|l2) /.test(`${d} `));
        assert.ok(leadSteps.length > 0, steps.join(' | '));
        for (const d of leadSteps)
          assert.match(d, /^SEARCH (l|l2) USING (COVERING )?(INDEX|INTEGER PRIMARY KEY)/, d);
        // The subteam query sorts its candidates, one per member — never the team's leads.
        if (name !== 'lastOfSubteam')
          assert.ok(!steps.some((d) => /TEMP B-TREE/.test(d)), `no sort: ${steps.join(' | ')}`);
        assert.ok(!steps.some((d) => /^SCAN (l|l2|m)\b/.test(d)), steps.join(' | '));
        // A join's Bloom filter is built from the whole joined table (members, a subteam) per call.
        assert.ok(!steps.some((d) => /BLOOM FILTER ON/.test(d)), steps.join(' | '));
      });
    }

    test('the change feed walks leads_team_pos, a lead by v2 id is one seek', () => {
      for (const sql of [V2_QUERIES.changesTeam, V2_QUERIES.changesMember])
        assert.ok(
          plan(sql).some((d) => /SEARCH l USING INDEX leads_team_pos \(team_id=\? AND pos>\?\)/.test(d)),
        );
      assert.ok(plan(V2_QUERIES.byUuid).some((d) => /SEARCH l USING INDEX \w+ \(uuid=\?\)/.test(d)));
    });

    test('recentOfSubteam walks the team newest first from the window bound, one key look-up per lead', () => {
      const steps = plan(LEAD_QUERIES.recentOfSubteam);
      assert.ok(
        steps.some((d) => /SEARCH l USING INDEX leads_team_epoch \(team_id=\? AND epoch>\?\)/.test(d)),
        steps.join(' | '),
      );
      assert.ok(
        steps.some((d) =>
          /SEARCH sm .*USING PRIMARY KEY \(team_id=\? AND subteam_id=\? AND member_id=\?\)/.test(d),
        ),
        steps.join(' | '),
      );
      // No Bloom filter: SQLite builds one from the whole subteam each time the statement runs.
      assert.ok(!steps.some((d) => /BLOOM FILTER/.test(d)), steps.join(' | '));
      assert.ok(
        plan(LEAD_QUERIES.recentWindow).some((d) => /SEARCH l USING COVERING INDEX leads_team_epoch/.test(d)),
      );
    });

    test('lastOfSubteam (when the window holds none) walks the subteam, one seek per member', () => {
      const steps = plan(LEAD_QUERIES.lastOfSubteam);
      assert.ok(
        steps.some((d) => /SEARCH sm USING (PRIMARY KEY|INDEX \w+) \(\w+=\? AND \w+=\?\)/.test(d)),
        steps.join(' | '),
      );
      assert.ok(
        steps.some((d) =>
          // Not covering since migration 10: each member's newest lead is read to skip a merged one.
          /SEARCH l2 USING (COVERING )?INDEX leads_member_epoch \(team_id=\? AND member_id=\?\)/.test(d),
        ),
      );
    });
  });

test('opening a store forgets the STAT4 samples of an ANALYZE, which re-plan every statement', async () => {
  const made = await makeStore();
  try {
    await load(made.store, [
      { type: 'team', id: 1, name: 'T' },
      { type: 'member', id: 1, teamId: 1, email: 'm@t.test', pid: 'p1' },
      ...Array.from({ length: 50 }, (_, i) => ({
        type: 'lead',
        userId: 1,
        id: `l${i}`,
        epoch: i,
        isLead: true,
      })),
    ]);
    const raw = new Database(made.path);
    raw.exec('ANALYZE');
    const samples = () => (raw.prepare('SELECT count(*) AS n FROM sqlite_stat4').get() as { n: number }).n;
    assert.ok(samples() > 0, 'this SQLite build keeps samples (STAT4)');
    await made.store.migrate();
    assert.equal(samples(), 0);
    assert.ok((raw.prepare('SELECT count(*) AS n FROM sqlite_stat1').get() as { n: number }).n > 0);
    raw.close();
  } finally {
    await made.cleanup();
  }
});

test("the outbox's waiting events are read and counted through their partial index, even with a backlog's statistics", async () => {
  const made = await makeStore();
  try {
    const raw = new Database(made.path);
    // What ANALYZE writes while a million events wait (an import's): the partial index of the
    // waiting ones as large as the table. The planner then preferred scanning the table in seq
    // order, which walks every event already dispatched before the first one waiting.
    raw.exec('ANALYZE');
    raw.exec("DELETE FROM sqlite_stat1 WHERE tbl = 'webhook_events'");
    const stat = raw.prepare("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('webhook_events', ?, ?)");
    for (const [idx, s] of [
      ['webhook_events_waiting', '1000000 1'],
      ['webhook_events_team', '1000000 1000000 1'],
      ['webhook_events_lead', '1000000 1000000 1'],
      ['webhook_events_at', '1000000 1000000'],
      ['sqlite_autoindex_webhook_events_1', '1000000 1'],
    ])
      stat.run(idx, s);
    raw.exec('ANALYZE sqlite_schema'); // reloads the statistics
    const steps = (raw.prepare(`EXPLAIN QUERY PLAN ${WAITING_EVENTS}`).all(500) as { detail: string }[]).map(
      (r) => r.detail,
    );
    assert.ok(
      steps.some((d) => /^SCAN e USING INDEX webhook_events_waiting/.test(d)),
      steps.join(' | '),
    );
    assert.ok(!steps.some((d) => /TEMP B-TREE/.test(d)), steps.join(' | '));
    // The outbox depth gauge's count, read at every /metrics scrape, the same way.
    const count = (raw.prepare(`EXPLAIN QUERY PLAN ${UNDISPATCHED}`).all() as { detail: string }[]).map(
      (r) => r.detail,
    );
    assert.ok(
      count.some((d) => /^SCAN webhook_events USING (COVERING )?INDEX webhook_events_waiting/.test(d)),
      count.join(' | '),
    );
    raw.close();
  } finally {
    await made.cleanup();
  }
});
