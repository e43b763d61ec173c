import assert from 'node:assert/strict';
import type { Store } from '../../src/store.js';
import { type EngineName, makeEngineStore } from '../support/engines.js';
import { keyFor, load } from '../support/helpers.js';

/** 2024-07-01T12:00:00Z (summer: Berlin UTC+2, Los Angeles UTC−7). */
export const B = 1_719_835_200_000;
/** 2024-01-15T23:30:05Z (winter: Berlin UTC+1 — already the 16th there —, Los Angeles UTC−8). */
export const W = 1_705_361_405_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

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
export const lead = (userId: number, id: string, epoch: number, rest: Record<string, unknown>): LeadRec => ({
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

/** A fresh store on `engine` loaded with `records` (default: the full fixture), and a key per member. */
export async function buildFixture(engine: EngineName, records: Rec[] = fixtureRecords()): Promise<Fixture> {
  const { store, cleanup } = await makeEngineStore(engine);
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
