import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Compile } from 'typebox/compile';
import { V1Lead } from '../../src/schemas/v1-lead.js';
import type { Store } from '../../src/storage/store.js';
import { auth, keyFor, load, makeApp, makeStore } from '../helpers.js';

/** 2024-07-01T12:00:00Z (summer: Berlin UTC+2, Los Angeles UTC−7). */
export const B = 1_719_835_200_000;
/** 2024-01-15T23:30:05Z (winter: Berlin UTC+1 — already the 16th there —, Los Angeles UTC−8). */
export const W = 1_705_361_405_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export interface TeamRec {
  type: 'team';
  id: number;
  name: string;
  timeZone?: string;
}
export interface MemberRec {
  type: 'member';
  id: number;
  teamId: number;
  email: string;
  role?: 'admin' | 'member';
  pid?: string;
  name?: string;
}
export interface SubteamRec {
  type: 'subteam';
  id: number;
  teamId: number;
  name: string;
  members: number[];
  admins: number[];
}
export interface LeadRec {
  type: 'lead';
  id: string;
  epoch: number;
  userId: number;
  locationShared?: boolean;
  [member: string]: unknown;
}
export type Rec = TeamRec | MemberRec | SubteamRec | LeadRec;

const team = (id: number, name: string, timeZone?: string): TeamRec =>
  timeZone === undefined ? { type: 'team', id, name } : { type: 'team', id, name, timeZone };
const member = (
  id: number,
  teamId: number,
  email: string,
  role: 'admin' | 'member',
  pid?: string,
): MemberRec =>
  pid === undefined
    ? { type: 'member', id, teamId, email, role }
    : { type: 'member', id, teamId, email, role, pid };
const subteam = (
  id: number,
  teamId: number,
  name: string,
  members: number[],
  admins: number[],
): SubteamRec => ({
  type: 'subteam',
  id,
  teamId,
  name,
  members,
  admins,
});
const lead = (userId: number, id: string, epoch: number, rest: Record<string, unknown>): LeadRec => ({
  type: 'lead',
  userId,
  id,
  epoch,
  ...rest,
});

/**
 * `time` labels the service must write for the fixture's leads imported without one, worked out
 * by hand (not with the code under test): `YYYY-MM-DD HH:mm:ss` in the collector's team zone.
 */
export const GENERATED_TIME: Record<string, string> = {
  '+4915112345678': '2024-07-01 13:00:00', // Berlin, summer (UTC+2) of B − 1 h
  '30005': '2024-01-16 00:30:05', // Berlin, winter (UTC+1): next day already
  '50001': '2024-07-01 05:00:00', // Los Angeles, summer (UTC−7)
  '50002': '2024-01-15 15:30:05', // Los Angeles, winter (UTC−8)
  'eve.contact@plain-lead.test': '2024-01-15 23:30:05', // default team: UTC
  '0': '1970-01-01 00:00:00', // UTC, epoch 0
};

/** Team ids and who plays which role on each (member ids). */
export const BERLIN = { id: 101, teamAdmin: 1011, subAdmin: 1012, member: 1013 } as const;
export const LA = { id: 102, teamAdmin: 1021, subAdmin: 1022, member: 1023 } as const;
export const PLAIN = { id: 103, teamAdmin: 1031, subAdmin: 1032, member: 1033 } as const;
/** A team without a single lead, with only its admin. */
export const EMPTY = { id: 104, teamAdmin: 1041 } as const;
/** Subteams: 2011 is administered by 1012, who is not one of its members. */
export const SUB = {
  berlinField: 2011,
  berlinInside: 2012,
  laWest: 2021,
  plainSolo: 2031,
  plainQuiet: 2032,
} as const;
/** Epoch of the newest Berlin leads: a tie between 1012's (stored first) and 1015's (stored last). */
export const BERLIN_TOP = B + 20 * MIN;
/** Epoch shared by three Berlin leads of subteam 2011's members (1013 twice, then 1014). */
export const BERLIN_TIE = B + 10 * MIN;

/** The full fixture: three teams (and an empty fourth) with every role, every lead shape, in file (= storage) order. */
export function fixtureRecords(): Rec[] {
  return [
    team(101, 'Spree Leads GmbH', 'Europe/Berlin'),
    team(102, 'Pacific Contacts Inc', 'America/Los_Angeles'),
    team(103, 'Plain Co'),
    team(104, 'Empty Team', 'Asia/Tokyo'),
    member(1011, 101, 'ana.admin@spree.test', 'admin', '7011'),
    member(1012, 101, 'sam.sub@spree.test', 'member', '7012'),
    member(1013, 101, 'mia@spree.test', 'member', '7013'),
    member(1014, 101, 'max@spree.test', 'member', '7014'),
    member(1021, 102, 'ray@pacific.test', 'admin', '7021'),
    member(1022, 102, 'ivy@pacific.test', 'member', '7022'),
    member(1023, 102, 'joe@pacific.test', 'member', '7023'),
    member(1024, 102, 'kim@pacific.test', 'member', '7024'),
    member(1025, 102, 'amy@pacific.test', 'member', '7025'),
    member(1031, 103, 'una@plain.test', 'admin', '7031'),
    member(1032, 103, 'tom@plain.test', 'member', '7032'),
    member(1033, 103, 'eve@plain.test', 'member', '7033'),
    member(1034, 103, 'zoe@plain.test', 'member', '7034'),
    member(1041, 104, 'nil@empty.test', 'admin', '7041'),
    subteam(2011, 101, 'Field sales', [1013, 1014], [1012]),
    subteam(2021, 102, 'West', [1022, 1023], [1022]),
    subteam(2031, 103, 'Solo', [1033], [1032]),
    subteam(2032, 103, 'Quiet', [1034], [1032]),
    // Berlin
    lead(1011, '30001', B - 2 * DAY, {
      time: '29.06.2024',
      isLead: true,
      apptoapp: true,
      name: 'Otto Adminlead',
      company: 'Adler AG',
    }),
    lead(1011, 'greta@kunde.test', B - DAY, {
      time: 'Jun 30, 2024 12:00 PM',
      userEmail: 'ana.admin@spree.test',
      userPid: 'custom-pid-9',
      isManual: true,
      isLead: true,
      apptoapp: true,
      name: 'Greta Fullrecord',
      company: 'Kunde KG',
      jobTitle: 'CTO',
      email: 'greta@kunde.test',
      number: '4930123456',
      address: 'Unter den Linden 1, 10117 Berlin',
      website: 'https://kunde.test',
      linkedIn: 'https://linkedin.com/in/greta',
      fullContact: { twitter: 'https://twitter.com/greta', linkedin: 'https://linkedin.com/in/greta' },
      image: 'img/greta.png',
      note: 'Met at booth 4 — «sehr gut»',
      bio: 'Builds things',
      location: 'Berlin, BE',
      locationShared: true,
      lat: '52.5200',
      long: '13.4050',
      attachments: [{ name: 'deck.pdf', url: 'https://files.test/deck.pdf' }, 'note.txt'],
      crm: { hubspot: { id: 'hs-1', synced: true }, tags: ['a', 'b'] },
      url: 'https://profile.test/mia',
      views: '12',
      pops: '3',
      pro: '1',
      mode: '0',
      v: '2',
      hash: 'a1b2c3',
      isLoggedIn: '1',
    }),
    lead(1013, '+4915112345678', B - HOUR, {
      isLead: true,
      name: 'Hans Hiddenplace',
      locationShared: false,
      lat: '52.1000',
      long: '13.1000',
    }),
    lead(1014, '30004', B - 2 * HOUR, {
      time: '01.07.2024 12:00',
      isScan: true,
      isRoll: true,
      card: 'card-30004.jpg',
      noService: true,
      name: 'Sydney Scanner',
      locationShared: true,
      lat: '-33.8688',
      long: '151.2093',
    }),
    lead(1014, '30005', W, { isScan: true, name: 'Wanda Winter', lat: '48.1000', long: '11.5000' }),
    lead(1013, '30006', B - 30 * MIN, {
      time: '',
      isLead: true,
      apptoapp: false,
      isManual: true,
      name: '',
      company: '',
      note: '',
      isLoggedIn: '',
      views: '',
    }),
    lead(1013, '30007', BERLIN_TIE, { time: 'tie a', isLead: true, name: 'Tina Tie-A' }),
    lead(1013, '30008', BERLIN_TIE, { time: 'tie b', isScan: true, name: 'Tobi Tie-B' }),
    lead(1014, '30009', BERLIN_TIE, { time: 'tie c', isLead: true, name: 'Toni Tie-C' }),
    lead(1012, '30010', BERLIN_TOP, { time: 'top 1', isLead: true, name: 'Sami Subadminlead' }),
    // 1015 is defined below: this lead waits for its member yet keeps its place in storage order.
    lead(1015, '30011', BERLIN_TOP, { time: 'top 2', isScan: true, userPid: '9915', name: 'Lea Toplead' }),
    member(1015, 101, 'lea@spree.test', 'member'),
    subteam(2012, 101, 'Inside sales', [1012, 1015], [1015]),
    // Los Angeles
    lead(1023, '50001', B, {
      isLead: true,
      name: 'Lou Angeleno',
      locationShared: true,
      lat: '34.0522',
      long: '-118.2437',
    }),
    lead(1025, '50002', W, {
      isScan: true,
      isRoll: false,
      card: '',
      name: 'Sly Scanwest',
      locationShared: false,
      lat: '34.1000',
      long: '-118.3000',
    }),
    lead(1022, '50003', B + 5 * MIN, { time: 'Jul 1, 2024 5:05 AM', isLead: true, name: 'Ivo Westsub' }),
    lead(1021, '50004', B + 30 * MIN, { time: 'la admin', isLead: true, name: 'Rae Adminwest' }),
    lead(1024, '50005', B + 40 * MIN, { time: 'la late', isScan: true, isRoll: true, name: 'Kai Latewest' }),
    // Plain (UTC)
    lead(1033, 'eve.contact@plain-lead.test', W, {
      isLead: true,
      apptoapp: true,
      name: 'Evelyn Plaincontact',
      fullContact: { twitter: 'https://twitter.com/evec' },
      crm: {},
      attachments: [],
    }),
    lead(1033, '70002', B, { time: '2024-07-01', isScan: true, name: 'Pia Plainscan', locationShared: true }),
    lead(1033, '0', 0, { isLead: true, name: 'Zero Epochlead' }),
    lead(1031, '70004', B + HOUR, {
      time: 'plain admin',
      isScan: true,
      name: 'Una Adminplain',
      locationShared: true,
      lat: '0',
      long: '0',
    }),
    lead(1032, '70005', B + 2 * HOUR, { time: 'plain sub', isLead: true, name: 'Tom Subplain' }),
  ];
}

/** What the service should hold after importing `records` in order: the test's own oracle. */
export class Model {
  readonly teams = new Map<number, TeamRec>();
  readonly members = new Map<number, MemberRec>();
  readonly subteams = new Map<number, SubteamRec>();
  /** Leads in storage order; re-importing a lead's identity keeps its place. */
  readonly leads: LeadRec[] = [];

  constructor(records: Rec[]) {
    for (const r of records) this.apply(r);
  }

  apply(r: Rec): void {
    if (r.type === 'team') this.teams.set(r.id, r);
    else if (r.type === 'member') this.members.set(r.id, r);
    else if (r.type === 'subteam') this.subteams.set(r.id, r);
    else {
      const i = this.leads.findIndex((l) => l.userId === r.userId && l.id === r.id && l.epoch === r.epoch);
      if (i >= 0) this.leads[i] = r;
      else this.leads.push(r);
    }
  }

  member(id: number): MemberRec {
    const m = this.members.get(id);
    assert.ok(m, `fixture has no member ${id}`);
    return m;
  }

  lead(id: string): LeadRec {
    const l = this.leads.find((x) => x.id === id);
    assert.ok(l, `fixture has no lead ${id}`);
    return l;
  }

  ownLeads(memberId: number): LeadRec[] {
    return this.leads.filter((l) => l.userId === memberId);
  }

  teamLeads(teamId: number): LeadRec[] {
    return this.leads.filter((l) => this.member(l.userId).teamId === teamId);
  }

  /** Leads of the subteam's current members (admins who are not members excluded). */
  subteamLeads(subteamId: number): LeadRec[] {
    const s = this.subteams.get(subteamId);
    assert.ok(s, `fixture has no subteam ${subteamId}`);
    return this.teamLeads(s.teamId).filter((l) => s.members.includes(l.userId));
  }

  /** The lead with the greatest epoch; among equal epochs the one stored last (C4). */
  static last(leads: LeadRec[]): LeadRec | undefined {
    let best: LeadRec | undefined;
    for (const l of leads) if (best === undefined || l.epoch >= best.epoch) best = l;
    return best;
  }

  /** Half-open `[start, end)` in storage order, then stably sorted by epoch (C3, C4). */
  static range(leads: LeadRec[], start: number, end: number | null): LeadRec[] {
    return leads
      .filter((l) => l.epoch >= start && (end === null || l.epoch < end))
      .sort((a, b) => a.epoch - b.epoch);
  }

  /** The v1 lead the service must return for an imported record (C1 round trip). */
  wire(rec: LeadRec): Record<string, unknown> {
    const { type: _type, locationShared, lat, long, ...rest } = rec;
    const m = this.member(rec.userId);
    const out: Record<string, unknown> = { ...rest };
    const generated = GENERATED_TIME[rec.id];
    if (rec.time === undefined) assert.ok(generated !== undefined, `no expected time for lead ${rec.id}`);
    out.time = rec.time ?? generated;
    out.userEmail = m.email;
    out.userPid = rec.userPid ?? m.pid;
    out.isManual = rec.isManual ?? false;
    if (rec.isLead === true) out.apptoapp = rec.apptoapp ?? false;
    else out.isRoll = rec.isRoll ?? false;
    if (locationShared === true) {
      if (lat !== undefined) out.lat = lat;
      if (long !== undefined) out.long = long;
    }
    return out;
  }
}

export interface Fixture {
  store: Store;
  records: Rec[];
  model: Model;
  /** A key for every member of the fixture, by member id. */
  keys: Map<number, string>;
  key(memberId: number): string;
  cleanup(): Promise<void>;
}

/** A fresh SQLite file store loaded with `records` (default: the full fixture), and a key per member. */
export async function buildFixture(records: Rec[] = fixtureRecords()): Promise<Fixture> {
  const { store, cleanup } = await makeStore();
  await load(store, records);
  const model = new Model(records);
  const keys = new Map<number, string>();
  // Legacy-granted keys: the clients of v1 are the integrations that predate its freeze (C7).
  for (const id of model.members.keys()) keys.set(id, await keyFor(store, { member: id, legacyV1: true }));
  return {
    store,
    records,
    model,
    keys,
    key(memberId) {
      const k = keys.get(memberId);
      assert.ok(k, `no key for member ${memberId}`);
      return k;
    },
    cleanup,
  };
}

// ---- HTTP helpers ----

export const V1 = '/api/pub/leads/';
export type OpName =
  | 'getLastLead'
  | 'getLastLeadTeam'
  | 'getLastLeadSubTeam'
  | 'getLeadsTimeRange'
  | 'getLeadsTimeRangeForTeam';
export const OP_NAMES: OpName[] = [
  'getLastLead',
  'getLastLeadTeam',
  'getLastLeadSubTeam',
  'getLeadsTimeRange',
  'getLeadsTimeRangeForTeam',
];

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';

export async function call(
  app: FastifyInstance,
  path: string,
  key?: string,
  options: { method?: Method; headers?: Record<string, string>; payload?: string } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: options.method ?? 'GET',
    url: path,
    headers: { ...(key === undefined ? {} : auth(key)), ...options.headers },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });
}

const checkV1Lead = Compile(V1Lead);

function assertNoNull(value: unknown, path: string): void {
  assert.notEqual(value, null, `${path} is null`);
  if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) assertNoNull(v, `${path}.${k}`);
}

/**
 * A 200 v1 answer: JSON content type, private/no-cache, deprecation signals, an array of leads
 * that each match the wire schema (C1 types) and its presence rules. Returns the leads.
 */
export function assertLeads(res: LightMyRequestResponse): Record<string, unknown>[] {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'private, no-cache');
  assertDeprecation(res);
  const body: unknown = JSON.parse(res.body);
  assert.ok(Array.isArray(body), 'body is a JSON array');
  for (const l of body as Record<string, unknown>[]) {
    const valid: boolean = checkV1Lead.Check(l);
    assert.ok(valid, `lead matches the v1 wire schema: ${JSON.stringify(l)}`);
    assertNoNull(l, 'lead');
    for (const m of ['id', 'epoch', 'time', 'userId', 'userEmail', 'userPid', 'isManual'])
      assert.ok(Object.hasOwn(l, m), `always-present member ${m}`);
    assert.ok(Number.isSafeInteger(l.epoch) && Number.isSafeInteger(l.userId));
    if (l.isLead === true) {
      assert.equal(typeof l.apptoapp, 'boolean', 'a connection lead always has apptoapp');
      assert.notEqual(l.isScan, true);
    } else {
      assert.equal(l.isScan, true, 'a lead is a connection or a scan');
      assert.equal(typeof l.isRoll, 'boolean', 'a scan lead always has isRoll');
    }
  }
  return body as Record<string, unknown>[];
}

/** Asserts that no lead in `leads` carries lat/long unless the model says it consented. */
export function assertConsent(model: Model, leads: Record<string, unknown>[]): void {
  for (const l of leads) {
    const rec = model.leads.find((r) => r.id === l.id && r.epoch === l.epoch && r.userId === l.userId);
    assert.ok(rec, `returned lead ${String(l.id)} is one the fixture imported`);
    if (rec.locationShared !== true) {
      assert.ok(!('lat' in l) && !('long' in l), `lead ${rec.id} without consent carries no lat/long`);
    }
  }
}

/** Identity of returned leads (`id@epoch`), for order comparisons. */
export const ids = (leads: { id?: unknown; epoch?: unknown }[]): string[] =>
  leads.map((l) => `${String(l.id)}@${String(l.epoch)}`);

export const DEFAULT_DEPRECATION = `@${Date.parse('2026-01-01T00:00:00Z') / 1000}`;

/** Link header → `rel` → target. */
export function links(res: LightMyRequestResponse): Map<string, string> {
  const out = new Map<string, string>();
  const header = String(res.headers.link ?? '');
  for (const part of header.split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>(.*)$/.exec(part.trim());
    const rel = m?.[2] === undefined ? undefined : /;\s*rel="([^"]+)"/.exec(m[2])?.[1];
    if (m?.[1] !== undefined && rel !== undefined) out.set(rel, m[1]);
  }
  return out;
}

/** C6: deprecation signals; `Sunset` and rel="sunset" only when a sunset is configured. */
export function assertDeprecation(res: LightMyRequestResponse, sunset: string | null = null): void {
  assert.equal(res.headers.deprecation, DEFAULT_DEPRECATION);
  const rels = links(res);
  assert.match(rels.get('deprecation') ?? '', /^https?:\/\//, 'Link rel="deprecation"');
  assert.match(rels.get('successor-version') ?? '', /^https?:\/\//, 'Link rel="successor-version"');
  if (sunset === null) {
    assert.equal(res.headers.sunset, undefined);
    assert.equal(rels.has('sunset'), false);
  } else {
    assert.equal(res.headers.sunset, sunset);
    assert.match(rels.get('sunset') ?? '', /^https?:\/\//, 'Link rel="sunset"');
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_params?: { name: string; reason: string }[];
}

/**
 * C5: an RFC 9457 problem with the given status, its instance the request id, deprecation
 * signals (C6), `WWW-Authenticate` on 401, and nothing of any lead in it.
 */
export function assertProblem(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  model?: Model,
): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json\b/);
  assertDeprecation(res);
  if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
  const p = JSON.parse(res.body) as Problem;
  assert.equal(p.type, `http://localhost:3000/problems/${code}`);
  assert.equal(typeof p.title, 'string');
  assert.ok(p.title.length > 0);
  assert.equal(p.status, status);
  assert.equal(typeof p.detail, 'string');
  assert.ok(p.detail.length > 0);
  assert.equal(p.instance, res.headers['x-request-id']);
  assert.ok(p.instance.length > 0);
  const allowed = new Set(['type', 'title', 'status', 'detail', 'instance', 'invalid_params']);
  for (const k of Object.keys(p)) assert.ok(allowed.has(k), `unexpected problem member ${k}`);
  assert.doesNotMatch(res.body, /"epoch"|"userEmail"|\bat \S+ \(|\/work\/|SELECT /);
  if (model !== undefined) {
    for (const l of model.leads) {
      if (typeof l.name === 'string' && l.name !== '') assert.ok(!res.body.includes(l.name), 'no lead name');
      assert.ok(!res.body.includes(model.member(l.userId).email), 'no collector e-mail');
    }
  }
  return p;
}

/** C5: `invalid_params` names exactly these parameters. */
export function assertInvalidParams(p: Problem, names: string[]): void {
  assert.ok(Array.isArray(p.invalid_params), 'invalid_params present');
  assert.deepEqual([...new Set(p.invalid_params.map((x) => x.name))].sort(), [...names].sort());
  for (const x of p.invalid_params) assert.ok(x.reason.length > 0, 'each names why');
}

/** RateLimit fields of an answer to an authenticated caller (C5). */
export function assertRateLimitFields(res: LightMyRequestResponse): void {
  assert.match(String(res.headers['ratelimit-policy']), /^"default";q=\d+;w=\d+$/);
  assert.match(String(res.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
}

/** Imports more records into a fixture's store (a second import) and keeps its model in step. */
export async function importMore(fx: Fixture, records: Rec[]): Promise<void> {
  await load(fx.store, records, 'update.ndjson');
  for (const r of records) fx.model.apply(r);
}

/**
 * A team (UTC) whose admin 9011 and member 9012 hold `n` leads each, imported out of epoch order
 * with many equal epochs: enough to cross the service's batch size with ties at every boundary.
 */
export function bulkRecords(n: number): Rec[] {
  const out: Rec[] = [
    team(901, 'Bulk'),
    member(9011, 901, 'bulk.admin@bulk.test', 'admin', '9011'),
    member(9012, 901, 'bulk.member@bulk.test', 'member', '9012'),
  ];
  for (let i = 0; i < n; i++) {
    const epoch = B + ((i * 7919) % 97) * 1000;
    out.push(lead(9012, `m-${i}`, epoch, { time: `t${i}`, isLead: true }));
    out.push(lead(9011, `a-${i}`, epoch, { time: `t${i}`, isScan: true }));
  }
  return out;
}

/** Malformed `start`/`end` queries of operations 4 and 5, with the parameters each must name (C3). */
export const BAD_RANGE_QUERIES: [query: string, names: string[]][] = [
  ['', ['start']],
  ['end=5', ['start']],
  ['start=', ['start']],
  ['start', ['start']],
  ['start=1&start=2', ['start']],
  ['start=1&start=1', ['start']],
  ['start=1.5', ['start']],
  ['start=1.0', ['start']],
  ['start=-1', ['start']],
  ['start=%2B1', ['start']],
  ['start=+1', ['start']],
  ['start=1e3', ['start']],
  ['start=1E3', ['start']],
  ['start=abc', ['start']],
  ['start=0x10', ['start']],
  ['start=%201', ['start']],
  ['start=1%20', ['start']],
  ['start=Infinity', ['start']],
  ['start=NaN', ['start']],
  ['start=%EF%BC%91', ['start']], // fullwidth digit one
  ['start=8640000000000001', ['start']],
  ['start=99999999999999999999', ['start']],
  ['start=0&end=', ['end']],
  ['start=0&end=1&end=2', ['end']],
  ['start=0&end=1.5', ['end']],
  ['start=0&end=-1', ['end']],
  ['start=0&end=1e13', ['end']],
  ['start=0&end=8640000000000001', ['end']],
  ['start=10&end=9', ['end']],
  ['start=1719835200000&end=1719835199999', ['end']],
  ['start=abc&end=-1', ['start', 'end']],
  ['start=&end=', ['start', 'end']],
  ['end=x', ['start', 'end']],
];

/** Malformed `subTeamId` queries of operation 3 (C3). */
export const BAD_SUBTEAM_QUERIES: string[] = [
  '',
  'subTeamId=',
  'subTeamId',
  'subTeamId=0',
  'subTeamId=000',
  'subTeamId=-1',
  'subTeamId=abc',
  'subTeamId=1.5',
  'subTeamId=1e3',
  'subTeamId=%2B2011',
  'subTeamId=2011&subTeamId=2011',
  'subTeamId=2011&subTeamId=2012',
  'subTeamId=0x7DB',
  'subteamid=2011',
  'subTeamId=%202011',
];

export interface CommonSuite {
  op: OpName;
  /** Caller with access to the operation. */
  memberId: number;
  /** A valid query (with its `?`, or empty) that answers at least one lead. */
  query: string;
  /** A member whose new lead becomes the answer of a last-lead operation (ETag ops 1–3). */
  collector?: number;
}

const SUNSET_ENV = { LEADLINE_V1_SUNSET_AT: '2099-01-01T00:00:00Z' };
const SUNSET_HTTP = 'Thu, 01 Jan 2099 00:00:00 GMT';

/**
 * What every v1 operation shares (C3 unknown parameters, C4 headers and bytes, ETag for ops 1–3,
 * C5 methods, HEAD and rate limits, C6 deprecation signals), registered in the calling file.
 */
export function commonV1Suite({ op, memberId, query, collector }: CommonSuite): void {
  const path = `${V1}${op}${query}`;
  let fx: Fixture;
  let app: FastifyInstance;
  let key: string;
  before(async () => {
    fx = await buildFixture();
    app = await makeApp(fx.store);
    key = fx.key(memberId);
  });
  after(async () => {
    await app.close();
    await fx.cleanup();
  });

  describe('C4: every 200 is a JSON array, private, no-cache, same bytes for the same request', () => {
    test('Content-Type application/json; charset=utf-8, Cache-Control private, no-cache', async () => {
      const leads = assertLeads(await call(app, path, key));
      assert.ok(leads.length > 0, 'the suite query answers leads');
      assertConsent(fx.model, leads);
    });
    test('identical requests over unchanged data return identical bytes', async () => {
      const a = await call(app, path, key);
      const b = await call(app, path, key);
      assert.equal(a.statusCode, 200);
      assert.ok(a.rawPayload.length > 2);
      assert.ok(a.rawPayload.equals(b.rawPayload));
      assert.equal(a.headers.etag, b.headers.etag);
    });
  });

  describe('C3: query parameters the operation does not define are ignored', () => {
    test('extra and foreign parameters give the very same answer', async () => {
      const extra = ['foo=bar', 'limit=1', 'sort=desc', 'page=2', 'empty=', 'flag'];
      if (!query.includes('start')) extra.push('start=abc', 'end=-1');
      if (!query.includes('subTeamId')) extra.push('subTeamId=abc');
      const plain = await call(app, path, key);
      const noisy = await call(app, `${path}${query === '' ? '?' : '&'}${extra.join('&')}`, key);
      assertLeads(noisy);
      assert.equal(noisy.body, plain.body);
    });
  });

  if (collector !== undefined) {
    describe('C4: ETag, and 304 with no body on a matching If-None-Match', () => {
      const cases: [string, (etag: string) => string][] = [
        ['the same tag', (e) => e],
        ['the weak form W/<tag>', (e) => `W/${e}`],
        ['*', () => '*'],
        ['a list holding the tag', (e) => `"nope", ${e}, "other"`],
      ];
      for (const [label, header] of cases) {
        test(`If-None-Match: ${label} → 304`, async () => {
          const first = await call(app, path, key);
          const etag = String(first.headers.etag);
          assert.match(etag, /^"[^"]+"$/, 'a strong entity tag');
          const res = await call(app, path, key, { headers: { 'if-none-match': header(etag) } });
          assert.equal(res.statusCode, 304);
          assert.equal(res.body, '');
          assert.equal(res.headers.etag, etag);
          assertDeprecation(res);
        });
      }
      test('a non-matching If-None-Match → 200 with the body', async () => {
        const first = await call(app, path, key);
        for (const inm of ['"something-else"', `W/"x${String(first.headers.etag).slice(1)}`]) {
          const res = await call(app, path, key, { headers: { 'if-none-match': inm } });
          assertLeads(res);
          assert.equal(res.body, first.body);
        }
      });
      test('HEAD with a matching If-None-Match → 304', async () => {
        const first = await call(app, path, key);
        const res = await call(app, path, key, {
          method: 'HEAD',
          headers: { 'if-none-match': String(first.headers.etag) },
        });
        assert.equal(res.statusCode, 304);
        assert.equal(res.body, '');
      });
      test('a new lead changes the ETag; the old tag then gets 200', async () => {
        const own = await buildFixture();
        const ownApp = await makeApp(own.store);
        try {
          const k = own.key(memberId);
          const before = await call(ownApp, path, k);
          await importMore(own, [lead(collector, 'etag-new', B + 100 * DAY, { time: 'new', isLead: true })]);
          const after = await call(ownApp, path, k, {
            headers: { 'if-none-match': String(before.headers.etag) },
          });
          const leads = assertLeads(after);
          assert.equal(leads[0]?.id, 'etag-new');
          assert.notEqual(after.headers.etag, before.headers.etag);
        } finally {
          await ownApp.close();
          await own.cleanup();
        }
      });
    });
  }

  describe('C5: methods other than GET and HEAD → 405 with Allow: GET, HEAD', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      test(method, async () => {
        const res = await call(app, path, key, { method });
        assertProblem(res, 405, 'method-not-allowed', fx.model);
        assert.equal(res.headers.allow, 'GET, HEAD');
      });
    }
    test('POST with an invalid JSON body → still 405', async () => {
      const res = await call(app, path, key, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        payload: '{"start": 1,,',
      });
      assertProblem(res, 405, 'method-not-allowed', fx.model);
      assert.equal(res.headers.allow, 'GET, HEAD');
    });
  });

  describe('C5: HEAD → 200 with no body', () => {
    test('status, headers of the GET, empty body', async () => {
      const get = await call(app, path, key);
      const head = await call(app, path, key, { method: 'HEAD' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(head.headers['cache-control'], 'private, no-cache');
      assert.equal(head.headers.etag, get.headers.etag);
      assertDeprecation(head);
    });
  });

  describe('C5: RateLimit / RateLimit-Policy on every answer, 429 with Retry-After past the limit', () => {
    test('fields on a 200', async () => {
      assertRateLimitFields(await call(app, path, key));
    });
    test('limit 3: three answers, then 429 with Retry-After; other keys unaffected', async () => {
      // A one-day window: the four requests cannot straddle a window boundary in practice.
      const limited = await makeApp(fx.store, {
        LEADLINE_RATE_LIMIT: '3',
        LEADLINE_RATE_WINDOW_SECONDS: '86400',
      });
      try {
        for (const remaining of [2, 1, 0]) {
          const res = await call(limited, path, key);
          assertLeads(res);
          assert.equal(res.headers['ratelimit-policy'], '"default";q=3;w=86400');
          assert.match(String(res.headers.ratelimit), new RegExp(`^"default";r=${remaining};t=\\d+$`));
        }
        const res = await call(limited, path, key);
        assertProblem(res, 429, 'rate-limited', fx.model);
        assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
        assertRateLimitFields(res);
        assert.match(String(res.headers.ratelimit), /;r=0;/);
        const other = await call(limited, `${V1}getLastLead`, fx.key(EMPTY.teamAdmin));
        assert.equal(other.statusCode, 200);
      } finally {
        await limited.close();
      }
    });
  });

  describe('C6: Deprecation and Link on every answer; Sunset only when configured', () => {
    test('no sunset configured: Deprecation @<seconds>, Link deprecation + successor-version, no Sunset', async () => {
      const res = await call(app, path, key);
      assert.equal(res.statusCode, 200);
      assertDeprecation(res);
    });
    test('LEADLINE_V1_SUNSET_AT set: Sunset (IMF-fixdate) and rel="sunset", on 200 and on errors', async () => {
      const withSunset = await makeApp(fx.store, SUNSET_ENV);
      try {
        const ok = await call(withSunset, path, key);
        assert.equal(ok.statusCode, 200);
        assertDeprecation(ok, SUNSET_HTTP);
        const unauthorized = await call(withSunset, path);
        assert.equal(unauthorized.statusCode, 401);
        assertDeprecation(unauthorized, SUNSET_HTTP);
      } finally {
        await withSunset.close();
      }
    });
    test('Deprecation carries the configured deprecation time', async () => {
      const configured = await makeApp(fx.store, { LEADLINE_V1_DEPRECATED_AT: '2025-06-01T00:00:00Z' });
      try {
        const res = await call(configured, path, key);
        assert.equal(res.headers.deprecation, `@${Date.UTC(2025, 5, 1) / 1000}`);
      } finally {
        await configured.close();
      }
    });
  });
}
