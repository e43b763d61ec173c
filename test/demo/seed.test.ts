import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { type SeedOptions, seedRecords } from '../../src/demo/seed.js';
import type { ImportSource } from '../../src/io/import/feed.js';
import { importRecords } from '../../src/io/import/run-import.js';
import { timeLabel } from '../../src/leads/time-label.js';
import { makeStore } from '../support/helpers.js';

type Rec = Record<string, unknown>;

const NOW = Date.parse('2026-11-01T00:00:00Z');
const OPTIONS: SeedOptions = { teams: 6, membersPerTeam: 5, leads: 3000, seed: 'seed-test', now: NOW };

const generate = (changes: Partial<SeedOptions> = {}) => [...seedRecords({ ...OPTIONS, ...changes })];
const parse = (lines: string[]) => lines.map((l) => JSON.parse(l) as Rec);
const ofType = (records: Rec[], type: string) => records.filter((r) => r.type === type);
const share = (records: Rec[], keep: (r: Rec) => boolean) => records.filter(keep).length / records.length;

function source(lines: string[]): ImportSource {
  return { name: 'seed.ndjson', open: () => Readable.from(lines.map((l) => `${l}\n`)) };
}

test('the same options give exactly the same lines', () => {
  assert.deepEqual(generate(), generate());
  assert.deepEqual(generate({ seed: 42 }), generate({ seed: '42' }));
});

test('another seed or another now gives other lines', () => {
  const lines = generate();
  assert.notDeepEqual(generate({ seed: 'another' }), lines);
  assert.notDeepEqual(generate({ now: NOW - 86_400_000 }), lines);
});

test('every line imports cleanly into a fresh store and the counts match the options', async () => {
  const { store, cleanup } = await makeStore();
  try {
    const summary = await importRecords(store, [source(generate())]);
    assert.equal(summary.teams, 6);
    assert.equal(summary.members, 30);
    assert.ok(summary.subteams >= 6 && summary.subteams <= 18, `${summary.subteams} subteams`);
    assert.equal(summary.leads, 3000);
    assert.equal(summary.newLeads, 3000, 'no two generated leads share an identity');
  } finally {
    await cleanup();
  }
});

test('seeding again with later first ids adds to a non-empty store', async () => {
  const { store, cleanup } = await makeStore();
  try {
    await importRecords(store, [source(generate())]);
    const later = { firstTeamId: 7, firstMemberId: 31, firstSubteamId: 19 };
    const summary = await importRecords(store, [source(generate(later))]);
    assert.equal(summary.newLeads, 3000);
    assert.deepEqual(await store.directory.maxIds(), {
      team: 12,
      member: 60,
      subteam: summary.subteams + 18,
    });
  } finally {
    await cleanup();
  }
});

test('records come as teams, members, subteams, leads, with ids from the first ids given', () => {
  const records = parse(generate({ firstTeamId: 100, firstMemberId: 500, firstSubteamId: 70 }));
  const order = ['team', 'member', 'subteam', 'lead'];
  const ranks = records.map((r) => order.indexOf(r.type as string));
  assert.deepEqual(
    ranks,
    [...ranks].sort((a, b) => a - b),
  );
  assert.deepEqual(
    ofType(records, 'team').map((t) => t.id),
    [100, 101, 102, 103, 104, 105],
  );
  assert.equal(ofType(records, 'member')[0]?.id, 500);
  assert.equal(ofType(records, 'subteam')[0]?.id, 70);
});

test('teams have one or two admins, unique e-mails, and subteams of their own members', () => {
  const records = parse(generate());
  const members = ofType(records, 'member');
  assert.equal(new Set(members.map((m) => m.email)).size, members.length);
  assert.ok(members.every((m) => typeof m.pid === 'string' && /^\d+$/.test(m.pid)));
  const teamOf = new Map(members.map((m) => [m.id, m.teamId]));
  for (const team of ofType(records, 'team')) {
    const admins = members.filter((m) => m.teamId === team.id && m.role === 'admin').length;
    assert.ok(admins === 1 || admins === 2, `team ${team.id} has ${admins} admins`);
  }
  for (const s of ofType(records, 'subteam')) {
    const ids = [...(s.members as number[]), ...(s.admins as number[])];
    assert.ok(ids.length > 0 && ids.every((id) => teamOf.get(id) === s.teamId));
  }
});

test('leads come in both kinds, with a consent mix, partial fields and several cultures', () => {
  const records = parse(generate());
  const leads = ofType(records, 'lead');
  const scans = leads.filter((l) => l.isScan === true);
  const connections = leads.filter((l) => l.isLead === true);
  assert.equal(scans.length + connections.length, leads.length);
  assert.ok(share(leads, (l) => l.isScan === true) > 0.25 && share(leads, (l) => l.isLead === true) > 0.4);
  assert.ok(connections.every((l) => /^\d+$/.test(l.id as string) && typeof l.apptoapp === 'boolean'));
  assert.ok(scans.every((l) => /^scan_\d+\.jpg$/.test(l.card as string) && typeof l.isRoll === 'boolean'));
  assert.ok(
    scans.some((l) => (l.id as string).includes('@')) && scans.some((l) => /^\+\d/.test(l.id as string)),
  );
  assert.ok(scans.some((l) => l.noService === true) && leads.some((l) => l.isManual === true));

  const consenting = share(leads, (l) => l.locationShared === true);
  const hidden = share(leads, (l) => l.locationShared !== true && l.lat !== undefined);
  assert.ok(consenting > 0.35 && consenting < 0.45, `${consenting} consenting`);
  assert.ok(hidden > 0.07 && hidden < 0.13, `${hidden} with coordinates but no consent`);
  assert.ok(
    leads.filter((l) => l.locationShared === true).every((l) => /^-?\d+\.\d{6}$/.test(l.lat as string)),
  );

  const named = share(leads, (l) => typeof l.name === 'string');
  assert.ok(named > 0.93, `${named} named`);
  assert.ok(share(leads, (l) => l.address !== undefined) < 0.3);
  assert.ok(leads.some((l) => Object.values(l).includes('')));
  const labelled = share(leads, (l) => l.time !== undefined);
  assert.ok(labelled > 0.01 && labelled < 0.06, `${labelled} with a time label`);

  const zones = new Set(ofType(records, 'team').map((t) => t.timeZone));
  assert.ok(zones.size >= 5, `time zones: ${[...zones]}`);
  const names = leads.map((l) => l.name).join(' ');
  assert.match(names, /\p{Script=Han}/u);
  assert.match(names, /[à-öø-ÿ]/);
});

test('leads cluster on a few event days, mostly within event hours', () => {
  const records = parse(generate());
  const zoneOf = new Map(ofType(records, 'team').map((t) => [t.id, t.timeZone as string]));
  const teamOf = new Map(ofType(records, 'member').map((m) => [m.id, m.teamId]));
  const perDay = new Map<string, number>();
  let inHours = 0;
  const leads = ofType(records, 'lead');
  for (const l of leads) {
    const epoch = l.epoch as number;
    assert.ok(epoch <= NOW && epoch > NOW - 19 * 31 * 86_400_000);
    const teamId = teamOf.get(l.userId);
    const label = timeLabel(epoch, zoneOf.get(teamId)!);
    const day = `${teamId} ${label.slice(0, 10)}`;
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    if (label.slice(11) >= '09:00:00' && label.slice(11) < '18:00:00') inHours++;
  }
  const counts = [...perDay.values()].sort((a, b) => b - a);
  const busiest = counts.slice(0, Math.ceil(counts.length / 10)).reduce((a, b) => a + b, 0);
  assert.ok(busiest / leads.length > 0.6, `${busiest} of ${leads.length} leads on the busiest tenth of days`);
  assert.ok(inHours / leads.length > 0.8, `${inHours} of ${leads.length} leads within 9:00-18:00`);
});

test('lines are generated lazily, so a huge seed starts at once', () => {
  const lines = seedRecords({ teams: 2, membersPerTeam: 3, leads: 50_000_000, seed: 1 });
  let n = 0;
  for (const _ of lines) if (++n === 200) break;
  assert.equal(n, 200);
});

test('options out of range are refused', () => {
  assert.throws(() => generate({ leads: -1 }), RangeError);
  assert.throws(() => generate({ teams: 0 }), RangeError);
  assert.throws(() => generate({ firstMemberId: 0 }), RangeError);
});
