import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { B, DAY, W } from '../v1/fixtures.js';
import { leadKey, type Oracle, type World } from './world.js';

/**
 * R1: random requests of every v1 and v2 operation, by every member of three teams, with
 * foreign lead, member, subteam and team ids, checked against the suite's own oracle.
 */
export type Op =
  | { kind: 'v1'; caller: number; op: 'getLastLead' | 'getLastLeadTeam' }
  | {
      kind: 'v1range';
      caller: number;
      op: 'getLeadsTimeRange' | 'getLeadsTimeRangeForTeam';
      start: number;
      end: number | null;
    }
  | { kind: 'v1sub'; caller: number; subTeamId: number }
  | { kind: 'get'; caller: number; pick: number; random: boolean }
  | { kind: 'changes'; caller: number; limit: number }
  | { kind: 'search'; caller: number; body: SearchBody }
  | { kind: 'create'; caller: number; body: CreateBody };

interface SearchBody {
  filters: Record<string, unknown>;
  query?: { fields: string[]; value: string; match: 'EXACT' | 'FUZZY' }[];
  sort?: { field: 'timestamp'; direction: 'ASC' | 'DESC' };
  limit?: number;
}
interface CreateBody {
  leadSource: string;
  captureDatetime?: string;
  locationShared?: boolean;
  userPid?: string;
  systemFields: Record<string, unknown>;
}

const TIMES = [
  0,
  W - 1,
  W,
  B - 2 * DAY,
  B - DAY,
  B - 3_600_000,
  B,
  B + 600_000,
  B + 1_200_000,
  B + 7_200_000,
  8_640_000_000_000_000,
];
const SOURCES = ['APP_TO_APP', 'PROFILE_CONNECTION', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN', 'MANUAL'];
const FIELDS = ['firstName', 'lastName', 'fullName', 'email', 'companyName', 'jobTitle', 'note'];
const WORDS = [
  'greta',
  'Otto Adminlead',
  'kunde',
  'Tina',
  'tie',
  'west',
  'plain',
  'Lou Angeleno',
  'scanner',
  'zzzqqq',
];

export function opArbitrary(w: World): fc.Arbitrary<Op> {
  const caller = fc.constantFrom(...w.fx.model.members.keys());
  const anyId = (ids: number[]) => fc.constantFrom(...ids);
  const ids = (pool: number[]) => fc.uniqueArray(anyId(pool), { minLength: 1, maxLength: 3 });
  const time = fc.constantFrom(...TIMES).map((t) => (t > 8_000_000_000_000_000 ? 253_402_300_799_000 : t));
  const iso = time.map((t) => new Date(t).toISOString());
  const scope = fc.oneof(
    { weight: 3, arbitrary: anyId(w.teamIds).map((teamId) => ({ teamId })) },
    { weight: 3, arbitrary: ids(w.subteamIds).map((subteamIds) => ({ subteamIds })) },
    { weight: 3, arbitrary: ids(w.memberIds).map((assignedMemberIds) => ({ assignedMemberIds })) },
    // Zero scopes or two: always 400.
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record({ teamId: anyId(w.teamIds), assignedMemberIds: ids(w.memberIds) }),
    },
  );
  const search: fc.Arbitrary<SearchBody> = fc.record(
    {
      filters: fc
        .tuple(
          scope,
          fc.record(
            {
              startTime: iso,
              endTime: iso,
              leadSource: fc.uniqueArray(fc.constantFrom(...SOURCES), { minLength: 1, maxLength: 3 }),
              hasEmail: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
        )
        .map(([s, c]) => ({ ...s, ...c })),
      query: fc.array(
        fc.record({
          fields: fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 3 }),
          value: fc.constantFrom(...WORDS),
          match: fc.constantFrom('EXACT' as const, 'FUZZY' as const),
        }),
        { maxLength: 2 },
      ),
      sort: fc.record({
        field: fc.constant('timestamp' as const),
        direction: fc.constantFrom('ASC' as const, 'DESC' as const),
      }),
      limit: fc.integer({ min: 1, max: 1000 }),
    },
    { requiredKeys: ['filters'] },
  );
  const coordinate = fc.integer({ min: -890_000, max: 890_000 }).map((x) => x / 1e4);
  const create: fc.Arbitrary<CreateBody> = fc.record(
    {
      leadSource: fc.constantFrom(...SOURCES),
      captureDatetime: iso.filter((s) => s.startsWith('2024') || s.startsWith('1970')),
      locationShared: fc.boolean(),
      userPid: fc.constant('pid-given'),
      systemFields: fc.record(
        {
          fullName: fc.constantFrom('Pat Created', 'Ola Nueva'),
          email: fc.constantFrom('created.person@example.test', 'other@example.test'),
          phone: fc.constantFrom('+4917012345678', '0301234567'),
          location: fc.record(
            { label: fc.constant('Somewhere'), latitude: coordinate, longitude: coordinate },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ['fullName'] },
      ),
    },
    { requiredKeys: ['leadSource', 'systemFields'] },
  );
  return fc.oneof(
    caller.chain((c) =>
      fc
        .constantFrom('getLastLead' as const, 'getLastLeadTeam' as const)
        .map((op) => ({ kind: 'v1' as const, caller: c, op })),
    ),
    fc
      .record({
        caller,
        op: fc.constantFrom('getLeadsTimeRange' as const, 'getLeadsTimeRangeForTeam' as const),
        start: time,
        end: fc.option(time, { nil: null }),
      })
      .map((r) => ({
        kind: 'v1range' as const,
        ...r,
        end: r.end !== null && r.end < r.start ? null : r.end,
      })),
    fc.record({ caller, subTeamId: anyId(w.subteamIds) }).map((r) => ({ kind: 'v1sub' as const, ...r })),
    fc
      .record({ caller, pick: fc.nat(), random: fc.boolean() })
      .map((r) => ({ kind: 'get' as const, ...r, random: r.random && r.pick % 5 === 0 })),
    fc
      .record({ caller, limit: fc.integer({ min: 1, max: 1000 }) })
      .map((r) => ({ kind: 'changes' as const, ...r })),
    {
      weight: 3,
      arbitrary: fc.record({ caller, body: search }).map((r) => ({ kind: 'search' as const, ...r })),
    },
    {
      weight: 1,
      arbitrary: fc.record({ caller, body: create }).map((r) => ({ kind: 'create' as const, ...r })),
    },
  ) as fc.Arbitrary<Op>;
}

interface Expect {
  /** Statuses the oracle accepts. */
  status: number[];
  /** Members whose leads may appear in the answer. */
  allowed: Set<number>;
}

/** The first failing scope id decides; an id that does not exist or is another team's is 404. */
function searchExpectation(o: Oracle, w: World, caller: number, body: SearchBody): Expect {
  const f = body.filters;
  const team = o.teamOf(caller);
  const role = o.role(caller);
  const scopes = ['teamId', 'subteamIds', 'assignedMemberIds'].filter((s) => s in f);
  const none: Expect = { status: [400], allowed: new Set() };
  if (scopes.length !== 1) return none;
  let allowed = new Set<number>();
  let status: number[] = [200];
  if ('teamId' in f) {
    if (role === 'teamAdmin' && f.teamId === team) allowed = new Set(o.teamMembers(team));
    else status = [403];
  } else if ('subteamIds' in f) {
    for (const id of f.subteamIds as number[]) {
      const s = w.fx.model.subteams.get(id);
      if (s === undefined || s.teamId !== team) {
        // A member has no subteam scope at all: 403 before or instead of the id's 404 is no leak.
        status = role === 'member' ? [403, 404] : [404];
        break;
      }
      if (role === 'teamAdmin' || s.admins.includes(caller)) for (const m of s.members) allowed.add(m);
      else {
        status = [403];
        break;
      }
    }
  } else {
    const mine = o.visibleMembers(caller);
    for (const id of f.assignedMemberIds as number[]) {
      const m = w.fx.model.members.get(id);
      if (m === undefined || m.teamId !== team) {
        status = [404];
        break;
      }
      if (mine.has(id)) allowed.add(id);
      else {
        status = [403];
        break;
      }
    }
  }
  if (status[0] !== 200) return { status, allowed: new Set() };
  const { startTime, endTime } = f as { startTime?: string; endTime?: string };
  if (startTime !== undefined && endTime !== undefined && Date.parse(endTime) < Date.parse(startTime))
    return none;
  return { status, allowed };
}

export function expectation(w: World, op: Op): Expect {
  const o = w.oracle;
  const team = o.teamOf(op.caller);
  const role = o.role(op.caller);
  const own = new Set([op.caller]);
  switch (op.kind) {
    case 'v1':
    case 'v1range':
      if (op.op === 'getLastLead' || op.op === 'getLeadsTimeRange') return { status: [200], allowed: own };
      return role === 'teamAdmin'
        ? { status: [200], allowed: new Set(o.teamMembers(team)) }
        : { status: [403], allowed: new Set() };
    case 'v1sub': {
      const s = w.fx.model.subteams.get(op.subTeamId);
      if (s === undefined || s.teamId !== team) return { status: [404], allowed: new Set() };
      if (role === 'teamAdmin' || s.admins.includes(op.caller))
        return { status: [200], allowed: new Set(s.members) };
      return { status: [403], allowed: new Set() };
    }
    case 'get': {
      if (op.random) return { status: [404], allowed: new Set() };
      const target = w.leadIds[op.pick % w.leadIds.length];
      const vis = o.visibleMembers(op.caller);
      return target !== undefined && vis.has(target.userId)
        ? { status: [200], allowed: new Set([target.userId]) }
        : { status: [404], allowed: new Set() };
    }
    case 'changes':
      return { status: [200], allowed: o.visibleMembers(op.caller) };
    case 'search':
      return searchExpectation(o, w, op.caller, op.body);
    case 'create':
      // A member without a profile id must name one (docs/v2.md, Create a lead).
      return o.model.member(op.caller).pid === undefined && op.body.userPid === undefined
        ? { status: [400], allowed: new Set() }
        : { status: [201], allowed: own };
  }
}

export function requestOf(w: World, op: Op): InjectOptions {
  const headers = { authorization: `Bearer ${w.fx.key(op.caller)}` };
  const json = { ...headers, 'content-type': 'application/json' };
  switch (op.kind) {
    case 'v1':
      return { url: `/api/pub/leads/${op.op}`, headers };
    case 'v1range':
      return {
        url: `/api/pub/leads/${op.op}?start=${op.start}${op.end === null ? '' : `&end=${op.end}`}`,
        headers,
      };
    case 'v1sub':
      return { url: `/api/pub/leads/getLastLeadSubTeam?subTeamId=${op.subTeamId}`, headers };
    case 'get': {
      const id = op.random ? randomUUID() : w.leadIds[op.pick % w.leadIds.length]?.leadId;
      return { url: `/api/pub/v2/leads/${id}`, headers };
    }
    case 'changes':
      return { url: `/api/pub/v2/leads/changes?limit=${op.limit}`, headers };
    case 'search':
      return {
        method: 'POST',
        url: '/api/pub/v2/leads/search',
        headers: json,
        payload: JSON.stringify(op.body),
      };
    case 'create':
      return {
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: { ...json, 'idempotency-key': randomUUID() },
        payload: JSON.stringify(op.body),
      };
  }
}

interface WireLead {
  userId: number;
  id: string;
  epoch: number;
  hasCoordinates: boolean;
}

function leadsOf(res: LightMyRequestResponse): WireLead[] {
  const body = JSON.parse(res.body) as unknown;
  if (Array.isArray(body))
    return (body as Record<string, unknown>[]).map((l) => ({
      userId: l.userId as number,
      id: l.id as string,
      epoch: l.epoch as number,
      hasCoordinates: 'lat' in l || 'long' in l,
    }));
  const data = (body as { data: unknown }).data as { leads?: unknown[] };
  const list = (Array.isArray(data.leads) ? data.leads : [data]) as {
    assignedMembers: number[];
    legacyLeadId: string;
    captureDatetime: string;
    systemFields: { location: { latitude: number | null; longitude: number | null } | null };
  }[];
  return list.map((l) => ({
    userId: l.assignedMembers[0] as number,
    id: l.legacyLeadId,
    epoch: Date.parse(l.captureDatetime),
    hasCoordinates:
      l.systemFields.location !== null &&
      (l.systemFields.location.latitude !== null || l.systemFields.location.longitude !== null),
  }));
}

export interface IsolationStats {
  requests: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  leadsChecked: number;
  /** Leads outside the caller's scope for that request (or unknown to the model). */
  outOfScope: number;
  /** Leads carrying coordinates without the lead's consent. */
  coordinatesWithoutConsent: number;
  /** Answers whose status the oracle did not expect (403 vs 404 vs 200). */
  statusMismatches: number;
  serverErrors: number;
  examples: string[];
}

/** Sends `n` generated requests (seeded: the same seed gives the same requests) and counts violations. */
export async function runIsolation(w: World, n: number, seed: number): Promise<IsolationStats> {
  const stats: IsolationStats = {
    requests: 0,
    byKind: {},
    byStatus: {},
    leadsChecked: 0,
    outOfScope: 0,
    coordinatesWithoutConsent: 0,
    statusMismatches: 0,
    serverErrors: 0,
    examples: [],
  };
  const note = (s: string) => {
    if (stats.examples.length < 20) stats.examples.push(s);
  };
  const ops = fc.sample(opArbitrary(w), { numRuns: n, seed });
  for (const op of ops) {
    const expect = expectation(w, op);
    const res = await w.app.inject(requestOf(w, op));
    stats.requests++;
    stats.byKind[op.kind] = (stats.byKind[op.kind] ?? 0) + 1;
    stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    if (res.statusCode >= 500) {
      stats.serverErrors++;
      note(`5xx ${JSON.stringify(op)} → ${res.body.slice(0, 300)}`);
    }
    if (!expect.status.includes(res.statusCode)) {
      stats.statusMismatches++;
      note(
        `status ${res.statusCode}, expected ${expect.status}: ${JSON.stringify(op)} → ${res.body.slice(0, 200)}`,
      );
    }
    if (res.statusCode !== 200 && res.statusCode !== 201) {
      // An error never carries a lead: any coordinate or lead member in a problem is a leak.
      if (/"(lat|long|latitude|longitude|legacyLeadId|userEmail)"/.test(res.body)) {
        stats.outOfScope++;
        note(`lead data in an error: ${JSON.stringify(op)} → ${res.body.slice(0, 300)}`);
      }
      continue;
    }
    const leads = leadsOf(res);
    if (op.kind === 'create') {
      const l = leads[0];
      if (l !== undefined) {
        const loc = op.body.systemFields.location as { latitude?: number; longitude?: number } | undefined;
        const both = loc?.latitude !== undefined && loc.longitude !== undefined;
        w.oracle.created.set(leadKey(l.userId, l.id, l.epoch), {
          userId: op.caller,
          locationShared: op.body.locationShared === true && both,
        });
      }
    }
    for (const l of leads) {
      stats.leadsChecked++;
      if (!expect.allowed.has(l.userId) || !w.oracle.known(l.userId, l.id, l.epoch)) {
        stats.outOfScope++;
        note(`out of scope: lead ${leadKey(l.userId, l.id, l.epoch)} for ${JSON.stringify(op)}`);
      }
      if (l.hasCoordinates && !w.oracle.consented(l.userId, l.id, l.epoch)) {
        stats.coordinatesWithoutConsent++;
        note(
          `coordinates without consent: lead ${leadKey(l.userId, l.id, l.epoch)} for ${JSON.stringify(op)}`,
        );
      }
    }
  }
  return stats;
}
