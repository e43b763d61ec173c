import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { V1Lead } from '../../src/schemas/v1-lead.js';
import { enginesUnderTest } from '../support/engines.js';
import { auth, eventually, makeApp } from '../support/helpers.js';
import {
  B,
  BERLIN,
  BERLIN_TIE,
  BERLIN_TOP,
  buildFixture,
  DAY,
  EMPTY,
  type Fixture,
  fixtureRecords,
  LA,
  lead,
  PLAIN,
  type Rec,
  SUB,
  W,
} from '../v1/fixtures.js';
import { assertLeads, call, type OpName, V1 } from '../v1/http-assert.js';

/**
 * docs/v1-migration.md, checked: for each v1 operation, the v2 request the guide prints returns
 * the same leads in the same order as the v1 operation, on the same data, for many callers and
 * ranges; and every v1 member of each lead is recovered from the v2 lead through the table of
 * docs/v2.md. The inverse mapping below is written from that table, not from the service's
 * mapper (src/leads/v2-wire.ts), so it is an oracle for it.
 */

const DOCS = new URL('../../docs/', import.meta.url);
const doc = (name: string): string => readFileSync(new URL(name, DOCS), 'utf8');
const SEARCH = '/api/pub/v2/leads/search';
const CREATE = '/api/pub/v2/leads';
const CHANGES = '/api/pub/v2/leads/changes';
const MIN = 60_000;
const HOUR = 60 * MIN;

// ---------------------------------------------------------------------------------------------
// The guide's requests (docs/v1-migration.md "The five operations"), as functions of the ids and
// epochs a v1 call names. The guide's own JSON blocks are compared with these below.

type Scope = { assignedMemberIds: number[] } | { teamId: number } | { subteamIds: number[] };

const iso = (epoch: number): string => new Date(epoch).toISOString();

/** Operations 1–3: scope, newest first, one lead. */
function lastLeadRequest(scope: Scope): Record<string, unknown> {
  return { filters: { ...scope }, sort: { field: 'timestamp', direction: 'DESC' }, limit: 1 };
}

/** Operations 4–5: scope, the epochs as ISO times (no end: no endTime), oldest first, paged. */
function rangeRequest(
  scope: Scope,
  start: number,
  end: number | null,
  limit = 1000,
): Record<string, unknown> {
  const filters: Record<string, unknown> = { ...scope, startTime: iso(start) };
  if (end !== null) filters.endTime = iso(end);
  return { filters, sort: { field: 'timestamp', direction: 'ASC' }, limit };
}

/** The guide's five requests for a member, a team and a subteam: start B, end B + 1 h. */
const examples = (ids: {
  member: number;
  team: number;
  subteam: number;
}): Record<OpName, Record<string, unknown>> => ({
  getLastLead: lastLeadRequest({ assignedMemberIds: [ids.member] }),
  getLastLeadTeam: lastLeadRequest({ teamId: ids.team }),
  getLastLeadSubTeam: lastLeadRequest({ subteamIds: [ids.subteam] }),
  getLeadsTimeRange: rangeRequest({ assignedMemberIds: [ids.member] }, B, B + HOUR),
  getLeadsTimeRangeForTeam: rangeRequest({ teamId: ids.team }, B, null),
});
/** The guide prints them with the ids of `npm start`'s demo data (so they run as written there). */
const GUIDE_IDS = { member: 1, team: 1, subteam: 1 };
/** This test sends the same requests with the fixture's ids: Berlin's member, team and field subteam. */
const GUIDE_EXAMPLES = examples({ member: BERLIN.member, team: BERLIN.id, subteam: SUB.berlinField });

// ---------------------------------------------------------------------------------------------
// The oracle: where each v1 member lives in a v2 lead (docs/v2.md "Field mapping from v1").

const SYSTEM = (f: string) => `systemFields.${f}`;
const KEPT = (m: string) => `v1Fields.${m}`;
const V1_HOME: Record<string, string> = {
  id: 'legacyLeadId',
  epoch: 'captureDatetime',
  time: KEPT('time'),
  userId: 'assignedMembers[0]',
  userEmail: KEPT('userEmail'),
  userPid: SYSTEM('userPid'),
  name: SYSTEM('fullName'),
  company: SYSTEM('companyName'),
  jobTitle: SYSTEM('jobTitle'),
  email: SYSTEM('email'),
  number: SYSTEM('phone'),
  address: SYSTEM('address'),
  website: SYSTEM('website'),
  linkedIn: SYSTEM('linkedinUrl'),
  fullContact: KEPT('fullContact'),
  image: SYSTEM('profileImageUrl'),
  card: SYSTEM('businessCardImageUrl'),
  note: SYSTEM('note'),
  bio: SYSTEM('bio'),
  location: SYSTEM('location.label'),
  lat: KEPT('lat'),
  long: KEPT('long'),
  ...Object.fromEntries(
    [
      'isManual',
      'isLead',
      'apptoapp',
      'isScan',
      'isRoll',
      'noService',
      'attachments',
      'crm',
      'url',
      'views',
      'pops',
      'pro',
      'mode',
      'v',
      'hash',
      'isLoggedIn',
    ].map((m) => [m, KEPT(m)]),
  ),
};

/** The systemFields every v2 lead carries (v2-and-lifecycle "V2 lead shape"). */
const SYSTEM_FIELDS = [
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'companyName',
  'jobTitle',
  'website',
  'linkedinUrl',
  'twitterUrl',
  'address',
  'note',
  'bio',
  'profileImageUrl',
  'businessCardImageUrl',
  'location',
  'userPid',
];

interface V2Lead {
  leadId: string;
  legacyLeadId: string;
  assignedMembers: number[];
  leadSource: string;
  captureDatetime: string;
  createdAt: string;
  systemFields: Record<string, unknown>;
  v1Fields: Record<string, unknown>;
}

/** The value at `path` (`a.b`, `a[0]`); undefined when any step is missing or null. */
function at(value: unknown, path: string): unknown {
  let here: unknown = value;
  for (const step of path.split(/\.|(?=\[)/)) {
    if (here === null || typeof here !== 'object') return undefined;
    const index = /^\[(\d+)\]$/.exec(step);
    here = index === null ? (here as Record<string, unknown>)[step] : (here as unknown[])[Number(index[1])];
  }
  return here;
}

/** A v2 lead back to the v1 lead, through V1_HOME alone: `null` and absent both mean "no member". */
function toV1(l: V2Lead): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, path] of Object.entries(V1_HOME)) {
    const value = at(l, path);
    if (value === undefined || value === null) continue;
    if (member === 'epoch') out.epoch = Date.parse(value as string);
    else out[member] = value;
  }
  return out;
}

/** `firstName`/`lastName` of a lead that has only a name: its first word, and the rest. */
function split(name: unknown): { first: string | null; last: string | null } {
  const words = typeof name === 'string' ? name.trim().split(/\s+/).filter(Boolean) : [];
  return { first: words[0] ?? null, last: words.length > 1 ? words.slice(1).join(' ') : null };
}

/** leadSource as the v1 flags of an imported lead name it (docs/v2.md "leadSource and the v1 flags"). */
function sourceOfFlags(v1: Record<string, unknown>): string {
  if (v1.isScan === true) return 'BUSINESS_CARD_SCAN';
  if (v1.isManual === true) return 'MANUAL';
  return v1.apptoapp === true ? 'APP_TO_APP' : 'PROFILE_CONNECTION';
}

const identity = (l: { id: unknown; epoch: unknown; userId: unknown }) =>
  `${String(l.id)}@${String(l.epoch)}#${String(l.userId)}`;
const v2Identity = (l: V2Lead) =>
  identity({ id: l.legacyLeadId, epoch: Date.parse(l.captureDatetime), userId: l.assignedMembers[0] });

// ---------------------------------------------------------------------------------------------
// Data: the v1 fixture, a team whose one lead shows a known gap of the mapping, and leads
// created through v2 (ties with imported leads, a late upload, every source, consent and not).

const GAP = { id: 105, admin: 1051 } as const;
const GAP_RECORDS: Rec[] = [
  { type: 'team', id: GAP.id, name: 'Gap Co' },
  { type: 'member', id: GAP.admin, teamId: GAP.id, email: 'gap@gap.test', role: 'admin', pid: '7051' },
  lead(GAP.admin, '90001', B, {
    isLead: true,
    name: 'Lin Kedin',
    fullContact: { linkedin: 'https://linkedin.com/in/lin' },
  }),
];

interface Created {
  member: number;
  body: Record<string, unknown>;
}
const CREATED: Created[] = [
  {
    // Ties with imported 30007, 30008, 30009 at BERLIN_TIE: stored after them.
    member: BERLIN.member,
    body: {
      leadSource: 'PROFILE_CONNECTION',
      captureDatetime: iso(BERLIN_TIE),
      systemFields: { firstName: 'Tara', lastName: 'Tie-D', email: 'tara@tie.test', companyName: 'Tie GmbH' },
    },
  },
  {
    member: BERLIN.member,
    body: {
      leadSource: 'QR_CODE_SCAN',
      captureDatetime: '2024-07-01T14:10:00+02:00', // BERLIN_TIE again, with an offset
      locationShared: true,
      systemFields: {
        fullName: 'Quinn  QR Code',
        location: { label: 'Hall 3', latitude: 52.5, longitude: 13.25 },
      },
    },
  },
  {
    // Uploaded late: captured three days before the newest leads.
    member: 1014,
    body: {
      leadSource: 'BUSINESS_CARD_SCAN',
      captureDatetime: iso(B - 3 * DAY),
      systemFields: {
        fullName: 'Carla Card',
        phone: '+49 89 1234',
        jobTitle: 'Buyer',
        website: 'https://card.test',
        linkedinUrl: 'https://linkedin.com/in/carla',
        twitterUrl: 'https://twitter.com/carla',
        address: 'Marienplatz 1',
        note: 'late upload',
        bio: '',
        profileImageUrl: 'https://img.test/carla.png',
        businessCardImageUrl: 'https://img.test/card.jpg',
        // No consent: the coordinates are dropped, the label kept.
        location: { label: 'Munich', latitude: 48.1, longitude: 11.5 },
      },
    },
  },
  {
    member: BERLIN.teamAdmin,
    body: { leadSource: 'MANUAL', systemFields: { firstName: 'Solo', email: null } },
  },
  {
    // Ties with imported 50003 (B + 5 min, member 1022).
    member: LA.subAdmin,
    body: {
      leadSource: 'APP_TO_APP',
      captureDatetime: iso(B + 5 * MIN),
      userPid: 'pid-from-body',
      locationShared: true,
      systemFields: { firstName: 'Ada', lastName: 'App', location: { latitude: -33.5, longitude: 151.25 } },
    },
  },
  {
    // Ties with imported '0' at epoch 0.
    member: 1033,
    body: {
      leadSource: 'PROFILE_CONNECTION',
      captureDatetime: '1970-01-01T00:00:00Z',
      systemFields: { lastName: 'Epochson' },
    },
  },
];

const members = (fx: Fixture) => [...fx.model.members.keys()].filter((m) => m !== GAP.admin);
const teamAdmins = (fx: Fixture) =>
  [...fx.model.members.values()].filter((m) => m.role === 'admin' && m.id !== GAP.admin).map((m) => m.id);

/** v1 `start`/`end` pairs: everything, epoch 0, ties, empty ones, a late upload's day, the last ISO year. */
const RANGES: [start: number, end: number | null][] = [
  [0, null],
  [0, 1],
  [B, B + HOUR],
  [BERLIN_TIE, BERLIN_TIE + 1],
  [BERLIN_TIE, BERLIN_TIE],
  [BERLIN_TOP, null],
  [W, B],
  [B - 3 * DAY, B - 2 * DAY],
  [B - DAY, BERLIN_TOP + 1],
  [Date.parse('2100-01-01T00:00:00Z'), null],
  [0, Date.parse('9999-12-31T23:59:59.999Z')],
];
/** Page sizes for the range requests: one lead per page, ties split across pages, the guide's. */
const LIMITS = [1, 2, 3, 1000];

/** A v1 operation and its v2 counterpart for one caller. */
interface Case {
  label: string;
  caller: number;
  v1Path: string;
  /** The guide's request; for ranges, with the page size given. */
  v2: (limit: number) => Record<string, unknown>;
  paged: boolean;
}

function cases(fx: Fixture): Case[] {
  const out: Case[] = [];
  const teamOf = (m: number) => fx.model.member(m).teamId;
  for (const m of members(fx)) {
    out.push({
      label: `getLastLead as ${m}`,
      caller: m,
      v1Path: `${V1}getLastLead`,
      v2: () => lastLeadRequest({ assignedMemberIds: [m] }),
      paged: false,
    });
    for (const [start, end] of RANGES) {
      out.push({
        label: `getLeadsTimeRange as ${m} [${start}, ${end})`,
        caller: m,
        v1Path: `${V1}getLeadsTimeRange?start=${start}${end === null ? '' : `&end=${end}`}`,
        v2: (limit) => rangeRequest({ assignedMemberIds: [m] }, start, end, limit),
        paged: true,
      });
    }
  }
  for (const a of teamAdmins(fx)) {
    out.push({
      label: `getLastLeadTeam as ${a}`,
      caller: a,
      v1Path: `${V1}getLastLeadTeam`,
      v2: () => lastLeadRequest({ teamId: teamOf(a) }),
      paged: false,
    });
    for (const [start, end] of RANGES) {
      out.push({
        label: `getLeadsTimeRangeForTeam as ${a} [${start}, ${end})`,
        caller: a,
        v1Path: `${V1}getLeadsTimeRangeForTeam?start=${start}${end === null ? '' : `&end=${end}`}`,
        v2: (limit) => rangeRequest({ teamId: teamOf(a) }, start, end, limit),
        paged: true,
      });
    }
  }
  const subteamCallers: [caller: number, subteam: number][] = [
    [BERLIN.teamAdmin, SUB.berlinField],
    [BERLIN.teamAdmin, SUB.berlinInside],
    [BERLIN.subAdmin, SUB.berlinField], // administers 2011 without being a member
    [1015, SUB.berlinInside], // administers 2012 and is a member
    [LA.teamAdmin, SUB.laWest],
    [LA.subAdmin, SUB.laWest],
    [PLAIN.teamAdmin, SUB.plainSolo],
    [PLAIN.subAdmin, SUB.plainSolo],
    [PLAIN.subAdmin, SUB.plainQuiet], // no lead
    [PLAIN.teamAdmin, SUB.plainQuiet],
  ];
  for (const [caller, subteam] of subteamCallers) {
    out.push({
      label: `getLastLeadSubTeam?subTeamId=${subteam} as ${caller}`,
      caller,
      v1Path: `${V1}getLastLeadSubTeam?subTeamId=${subteam}`,
      v2: () => lastLeadRequest({ subteamIds: [subteam] }),
      paged: false,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function post(app: FastifyInstance, url: string, key: string, body: unknown, headers = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...auth(key), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

function v2Data<T>(res: LightMyRequestResponse): T {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'no-store');
  return (JSON.parse(res.body) as { data: T }).data;
}

interface SearchPage {
  leads: V2Lead[];
  nextCursor: string | null;
}

/** Sends `body`, then the same body with each `nextCursor` until it is null (the guide's loop). */
async function searchAll(app: FastifyInstance, key: string, body: Record<string, unknown>) {
  const limit = body.limit as number;
  const leads: V2Lead[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: SearchPage = v2Data(
      await post(app, SEARCH, key, cursor === null ? body : { ...body, cursor }),
    );
    pages++;
    assert.ok(page.leads.length <= limit, 'a page holds at most limit leads');
    if (cursor !== null) assert.ok(page.leads.length > 0, 'a nextCursor never leads to an empty page');
    if (page.nextCursor !== null) assert.equal(page.leads.length, limit, 'only a full page has a nextCursor');
    leads.push(...page.leads);
    cursor = page.nextCursor;
    assert.ok(pages <= 10_000, 'the cursor walk ends');
  } while (cursor !== null);
  assert.equal(pages, Math.max(1, Math.ceil(leads.length / limit)), 'nextCursor is null on the last page');
  return leads;
}

/** v1 and v2 answers hold the same leads in the same order, and v2 gives back every v1 member. */
function assertSameLeads(v1: Record<string, unknown>[], v2: V2Lead[], label: string, fx: GuideFixture): void {
  assert.deepEqual(
    v2.map(v2Identity),
    v1.map((l) => identity(l as never)),
    `${label}: same leads, same order`,
  );
  v1.forEach((l, i) => {
    const v2Lead = v2[i]!;
    const where = `${label}, lead ${String(l.id)}`;
    assert.deepEqual(toV1(v2Lead), l, `${where}: every v1 member recovered, exactly`);
    assert.equal(v2Lead.legacyLeadId, l.id);
    assert.equal(Date.parse(v2Lead.captureDatetime), l.epoch);
    assert.match(v2Lead.captureDatetime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(v2Lead.assignedMembers, [l.userId]);
    assert.deepEqual(
      Object.keys(v2Lead.systemFields).sort(),
      [...SYSTEM_FIELDS].sort(),
      `${where}: every field`,
    );
    const created = fx.created.get(identity(l as never));
    const sf = v2Lead.systemFields;
    const given = created?.body.systemFields as Record<string, unknown> | undefined;
    const { first, last } = split(l.name);
    assert.equal(sf.firstName, (given?.firstName as string | undefined) ?? first, `${where}: firstName`);
    assert.equal(sf.lastName, (given?.lastName as string | undefined) ?? last, `${where}: lastName`);
    const twitter = (l.fullContact as { twitter?: string } | undefined)?.twitter ?? null;
    assert.equal(sf.twitterUrl, twitter, `${where}: twitterUrl is fullContact.twitter`);
    assert.equal(
      v2Lead.leadSource,
      created === undefined ? sourceOfFlags(l) : created.body.leadSource,
      `${where}: leadSource`,
    );
  });
}

interface GuideFixture extends Fixture {
  /** Leads created through v2, by identity (v1 id, epoch, member). */
  created: Map<string, Created>;
}

for (const engine of enginesUnderTest()) {
  describe(`the v1 migration guide, request for request (${engine})`, () => {
    let fx: GuideFixture;
    let app: FastifyInstance;
    before(async () => {
      const base = await buildFixture(engine, [...fixtureRecords(), ...GAP_RECORDS]);
      fx = Object.assign(base, { created: new Map<string, Created>() });
      app = await makeApp(fx.store);
      for (const c of CREATED) {
        const res = await post(app, CREATE, fx.key(c.member), c.body);
        assert.equal(res.statusCode, 201, res.body);
        const made = (JSON.parse(res.body) as { data: V2Lead }).data;
        fx.created.set(v2Identity(made), c);
      }
    });
    after(async () => {
      await app?.close();
      await fx?.cleanup();
    });

    test('the guide’s example requests are the test’s requests, and give v1’s answers', async () => {
      // The examples of docs/v1-migration.md, as printed but for the ids: the demo's member, team
      // and subteam are the fixture's Berlin ones here (the test above pins the printed JSON).
      const v1Of: Record<OpName, [caller: number, path: string]> = {
        getLastLead: [BERLIN.member, 'getLastLead'],
        getLastLeadTeam: [BERLIN.teamAdmin, 'getLastLeadTeam'],
        getLastLeadSubTeam: [BERLIN.subAdmin, `getLastLeadSubTeam?subTeamId=${SUB.berlinField}`],
        getLeadsTimeRange: [BERLIN.member, `getLeadsTimeRange?start=${B}&end=${B + HOUR}`],
        getLeadsTimeRangeForTeam: [BERLIN.teamAdmin, `getLeadsTimeRangeForTeam?start=${B}`],
      };
      for (const [op, printed] of Object.entries(GUIDE_EXAMPLES)) {
        const [caller, path] = v1Of[op as OpName];
        const v1 = assertLeads(await call(app, `${V1}${path}`, fx.key(caller)));
        assert.ok(v1.length > 0, `${op}: the example finds leads`);
        // Operations 1–3 are one request (limit 1); 4–5 follow nextCursor until null.
        const v2 = op.startsWith('getLeadsTimeRange')
          ? await searchAll(app, fx.key(caller), printed)
          : v2Data<SearchPage>(await post(app, SEARCH, fx.key(caller), printed)).leads;
        assertSameLeads(v1, v2, `guide example ${op}`, fx);
      }
    });

    test('operations 1–3: scope + DESC + limit 1 is v1’s last lead, for every caller', async () => {
      let empty = 0;
      for (const c of cases(fx).filter((x) => !x.paged)) {
        const v1 = assertLeads(await call(app, c.v1Path, fx.key(c.caller)));
        const page: SearchPage = v2Data(await post(app, SEARCH, fx.key(c.caller), c.v2(1)));
        assert.ok(page.leads.length <= 1);
        assertSameLeads(v1, page.leads, c.label, fx);
        if (v1.length === 0) empty++;
      }
      assert.ok(empty >= 3, 'empty answers are among the cases');
    });

    test('operations 4–5: scope + startTime/endTime + ASC, following nextCursor, is v1’s range', async () => {
      let empty = 0;
      let paged = 0;
      for (const c of cases(fx).filter((x) => x.paged)) {
        const v1 = assertLeads(await call(app, c.v1Path, fx.key(c.caller)));
        if (v1.length === 0) empty++;
        for (const limit of LIMITS) {
          const v2 = await searchAll(app, fx.key(c.caller), c.v2(limit));
          assertSameLeads(v1, v2, `${c.label}, limit ${limit}`, fx);
          if (v2.length > limit) paged++;
        }
      }
      assert.ok(empty >= 10 && paged >= 50, `empty ranges (${empty}) and paged walks (${paged}) are covered`);
    });

    test('ties: leads sharing an epoch keep storage order across pages, created leads after imported', async () => {
      const v1 = assertLeads(
        await call(
          app,
          `${V1}getLeadsTimeRange?start=${BERLIN_TIE}&end=${BERLIN_TIE + 1}`,
          fx.key(BERLIN.member),
        ),
      );
      assert.equal(v1.length, 4, '30007, 30008 and the two leads created at the same millisecond');
      assert.deepEqual(
        v1.slice(0, 2).map((l) => l.id),
        ['30007', '30008'],
      );
      const v2 = await searchAll(
        app,
        fx.key(BERLIN.member),
        rangeRequest({ assignedMemberIds: [BERLIN.member] }, BERLIN_TIE, BERLIN_TIE + 1, 1),
      );
      assertSameLeads(v1, v2, 'tie', fx);
      // 2011's newest: the last lead stored at its newest epoch, a created one.
      const [sub] = assertLeads(
        await call(app, `${V1}getLastLeadSubTeam?subTeamId=${SUB.berlinField}`, fx.key(BERLIN.subAdmin)),
      );
      assert.equal(sub?.name, 'Quinn  QR Code');
    });

    test('ascending sort with limit 1 (the interface document’s wording) is the oldest lead, not the last', async () => {
      const asc = {
        ...lastLeadRequest({ teamId: BERLIN.id }),
        sort: { field: 'timestamp', direction: 'ASC' },
      };
      const [oldest] = v2Data<SearchPage>(await post(app, SEARCH, fx.key(BERLIN.teamAdmin), asc)).leads;
      const [last] = assertLeads(await call(app, `${V1}getLastLeadTeam`, fx.key(BERLIN.teamAdmin)));
      assert.notEqual(oldest?.legacyLeadId, last?.id);
      const defaultSort = { filters: { teamId: BERLIN.id }, limit: 1 };
      const [newest] = v2Data<SearchPage>(
        await post(app, SEARCH, fx.key(BERLIN.teamAdmin), defaultSort),
      ).leads;
      assert.equal(newest?.legacyLeadId, last?.id, 'DESC is the default');
    });

    test('the changes feed: the whole history once, then a late upload that a time window misses', async () => {
      const feed = async (key: string, cursor: string | null) =>
        v2Data<{ leads: V2Lead[]; nextCursor: string | null; pollCursor: string }>(
          await call(
            app,
            `${CHANGES}?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
            key,
          ),
        );
      const followAll = async (key: string, from: string | null) => {
        const seen: V2Lead[] = [];
        let page = await feed(key, from);
        seen.push(...page.leads);
        while (page.nextCursor !== null) {
          page = await feed(key, page.nextCursor);
          seen.push(...page.leads);
        }
        return { seen, pollCursor: page.pollCursor };
      };
      const sorted = (xs: string[]) => [...xs].sort();
      // Per role, the feed keeps what the guide says; filtered to one member it is v1's range.
      for (const [caller, v1Path, keep] of [
        [1014, `${V1}getLeadsTimeRange?start=0`, () => true],
        [
          BERLIN.subAdmin,
          `${V1}getLeadsTimeRange?start=0`,
          (l: V2Lead) => l.assignedMembers[0] === BERLIN.subAdmin,
        ],
        [BERLIN.teamAdmin, `${V1}getLeadsTimeRangeForTeam?start=0`, () => true],
      ] as const) {
        const v1 = assertLeads(await call(app, v1Path, fx.key(caller)));
        await eventually(async () => {
          const { seen } = await followAll(fx.key(caller), null);
          assert.deepEqual(
            sorted(seen.filter(keep).map(v2Identity)),
            sorted(v1.map((l) => identity(l as never))),
            `feed of ${caller}`,
          );
        });
      }
      const key = fx.key(1014);
      // Caught up: everything stored so far has been seen (on PostgreSQL it may take a moment).
      const { pollCursor } = await eventually(async () => {
        const all = await followAll(key, null);
        const v1 = assertLeads(await call(app, `${V1}getLeadsTimeRange?start=0`, key));
        assert.equal(all.seen.length, v1.length);
        return all;
      });
      const lastPoll = Date.now();
      const res = await post(app, CREATE, key, {
        leadSource: 'BUSINESS_CARD_SCAN',
        captureDatetime: iso(lastPoll - HOUR), // scanned offline an hour before the last poll
        systemFields: { fullName: 'Otto Offline' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const uploaded = (JSON.parse(res.body) as { data: V2Lead }).data;
      const window = assertLeads(await call(app, `${V1}getLeadsTimeRange?start=${lastPoll}`, key));
      assert.ok(!window.some((l) => l.id === uploaded.legacyLeadId), 'the time window misses it');
      const next = await eventually(async () => {
        const got = await followAll(key, pollCursor);
        assert.deepEqual(
          got.seen.map((l) => l.leadId),
          [uploaded.leadId],
          'the feed has it, and only it',
        );
        return got;
      });
      const idle = await feed(key, next.pollCursor);
      assert.deepEqual(idle.leads, []);
      assert.equal(idle.nextCursor, null);
      assert.equal(typeof idle.pollCursor, 'string');
    });

    test('a lead with fullContact.linkedin and no linkedIn of its own comes back without a linkedIn', async () => {
      const v1 = assertLeads(await call(app, `${V1}getLastLeadTeam`, fx.key(GAP.admin)));
      const page = v2Data<SearchPage>(
        await post(app, SEARCH, fx.key(GAP.admin), lastLeadRequest({ teamId: GAP.id })),
      );
      assertSameLeads(v1, page.leads, 'gap', fx);
    });

    test('the v1 Link headers point at pages the service serves, at anchors they have', async () => {
      const res = await call(app, `${V1}getLastLead`, fx.key(BERLIN.member));
      const targets = [...String(res.headers.link).matchAll(/<([^>]+)>/g)].map((m) => new URL(m[1]!));
      assert.ok(targets.some((u) => u.pathname === '/docs/v2' && u.hash === '#search-leads'));
      assert.ok(targets.some((u) => u.pathname === '/docs/v1-migration'));
      for (const u of targets) {
        const page = await app.inject({ method: 'GET', url: u.pathname });
        assert.equal(page.statusCode, 200, `${u.pathname} is served`);
        if (u.hash === '') continue;
        const id = u.hash.slice(1);
        // Served as HTML with heading ids, or as the Markdown source whose headings make them.
        const has = String(page.headers['content-type']).startsWith('text/html')
          ? page.body.includes(`id="${id}"`)
          : anchors(page.body).has(id);
        assert.ok(has, `${u.pathname} has ${u.hash}`);
      }
    });

    test('no v1 operation is left without its guide entry, and the empty team reads as empty', async () => {
      const ops = new Set(cases(fx).map((c) => /getL\w+/.exec(c.v1Path)?.[0]));
      assert.deepEqual([...ops].sort(), Object.keys(GUIDE_EXAMPLES).sort());
      const page = v2Data<SearchPage>(
        await post(app, SEARCH, fx.key(EMPTY.teamAdmin), lastLeadRequest({ teamId: EMPTY.id })),
      );
      assert.deepEqual(page, { leads: [], nextCursor: null });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The documents themselves.

/** Heading anchors of a Markdown text, as GitHub makes them. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return out;
}

/** The first ```json block after the `### n. \`op\`` heading of each operation in the guide. */
function guideRequests(): Record<OpName, Record<string, unknown>> {
  const text = doc('v1-migration.md');
  const out: Partial<Record<OpName, Record<string, unknown>>> = {};
  for (const op of Object.keys(GUIDE_EXAMPLES) as OpName[]) {
    const heading = new RegExp(`^### \\d\\. \`${op}\`[^\\n]*$`, 'm').exec(text);
    assert.ok(heading, `the guide has a section for ${op}`);
    const rest = text.slice(heading.index + heading[0].length);
    const block = /```json\n([\s\S]*?)\n```/.exec(rest);
    assert.ok(block?.[1], `the ${op} section has a JSON request`);
    out[op] = JSON.parse(block[1]) as Record<string, unknown>;
  }
  return out as Record<OpName, Record<string, unknown>>;
}

describe('docs/v1-migration.md and docs/v2.md', () => {
  test('each operation’s JSON in the guide is the request this test sends (the demo ids for the fixture’s)', () => {
    assert.deepEqual(guideRequests(), examples(GUIDE_IDS));
  });

  test('the follow-up page of a range is the same body with a cursor', () => {
    const text = doc('v1-migration.md');
    const section = text.slice(text.indexOf('### 4. `getLeadsTimeRange`'), text.indexOf('### 5.'));
    const blocks = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map(
      (m) => JSON.parse(m[1]!) as Record<string, unknown>,
    );
    assert.equal(blocks.length, 2);
    const { cursor, ...same } = blocks[1]!;
    assert.equal(typeof cursor, 'string');
    assert.deepEqual(same, blocks[0]);
  });

  test('the mapping table of docs/v2.md names, for every v1 member, the home this test reads it from', () => {
    const text = doc('v2.md');
    const table = text.slice(text.indexOf('## Field mapping from v1'));
    const rows = new Map<string, string>();
    for (const m of table.matchAll(/^\| `([A-Za-z]+)` \| `([^`]+)` \|/gm)) rows.set(m[1]!, m[2]!);
    const v1Members = Object.keys(V1Lead.properties).sort();
    assert.deepEqual(Object.keys(V1_HOME).sort(), v1Members, 'the oracle covers every v1 member');
    assert.deepEqual([...rows.keys()].sort(), v1Members, 'the table has one row per v1 member');
    for (const [member, home] of Object.entries(V1_HOME)) assert.equal(rows.get(member), home, member);
  });

  test('links between the two documents land on headings', () => {
    const pages: Record<string, string> = {
      'v2.md': doc('v2.md'),
      'v1-migration.md': doc('v1-migration.md'),
    };
    assert.ok(anchors(pages['v2.md']!).has('search-leads'), 'docs/v2 has #search-leads (v1 Link header)');
    for (const [name, text] of Object.entries(pages)) {
      for (const m of text.matchAll(/\]\(((?:v2|v1-migration)\.md)?#([a-z0-9-]+)\)/g)) {
        const target = m[1] ?? name;
        assert.ok(anchors(pages[target]!).has(m[2]!), `${name} → ${target}#${m[2]}`);
      }
    }
  });
});
