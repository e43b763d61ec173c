/**
 * @leadline/client/v1: the five v1 operations by their v1 names, answered through v2.
 *
 * Each returns what the v1 operation returns for the same key and data — the same leads, in the
 * same order, with the same members and values (member order aside, which JSON objects do not
 * keep) — so code written against v1 moves to v2 by changing one import. The requests are the
 * migration guide's (docs/v1-migration.md); v1's freeze, brownouts and sunset do not apply.
 * Arguments v1 would answer `400` to throw a RangeError before any call.
 */
import {
  createLeadline,
  type Deprecations,
  type Lead,
  type LeadlineOptions,
  type Me,
  type SearchBody,
} from './index.js';

export { LeadlineError, type LeadlineOptions, type Problem } from './index.js';

/** A lead as v1 sends it (v1 reference, "Wire shape of a lead"). */
export interface V1Lead {
  id: string;
  epoch: number;
  time: string;
  userId: number;
  userEmail: string;
  userPid: string;
  [member: string]: unknown;
}

/**
 * What the shim tells `onWarning` about the key it runs with (docs/client.md "Moving off v1"):
 * a brownout ahead of it — v1 answers `410` to this key then, so code of yours that still calls
 * v1 directly will fail — or v1 operations this key still called in the last 30 days.
 */
export type V1Warning =
  | { kind: 'brownout-scheduled'; startsAt: string; endsAt: string; message: string }
  | {
      kind: 'v1-still-called';
      operations: { operation: string; count: number; lastCall: string }[];
      message: string;
    };

export interface LeadlineV1Options extends LeadlineOptions {
  /**
   * Called once per warning, on the shim's first call (it reads `GET /api/pub/v2/me/deprecations`
   * once for that); a failure to read them is not the call's failure. A v1 answer's own
   * `Warning` header reads the same with `brownoutOf`.
   */
  onWarning?: (warning: V1Warning) => void;
}

const SCHEDULED = /v1-brownout-scheduled (\S+)\/(\S+):/;

/** The brownout a v1 answer's `Warning` header announces (docs/v1-deprecation-policy.md), if any. */
export function brownoutOf(warning: string | null): { startsAt: string; endsAt: string } | null {
  const m = warning === null ? null : SCHEDULED.exec(warning);
  return m === null ? null : { startsAt: m[1] as string, endsAt: m[2] as string };
}

/** The warnings a key's deprecations call for (`onWarning`). */
export function warningsOf(d: Deprecations): V1Warning[] {
  const key = d.keys[0];
  if (key === undefined) return [];
  const out: V1Warning[] = key.brownouts.map((b) => ({
    kind: 'brownout-scheduled',
    ...b,
    message: `v1 brownout for this key from ${b.startsAt} to ${b.endsAt}: v1 answers 410 to it then`,
  }));
  if (key.calls.length > 0)
    out.push({
      kind: 'v1-still-called',
      operations: key.calls.map((c) => ({ operation: c.operation, count: c.count, lastCall: c.lastCall })),
      message: `this key still called v1 in the last ${d.days} days: ${key.calls.map((c) => `${c.operation} ×${c.count}`).join(', ')}`,
    });
  return out;
}

/** v1 member ← v2 `systemFields` member, for the members that map one to one. */
const FROM_SYSTEM_FIELDS = {
  name: 'fullName',
  email: 'email',
  number: 'phone',
  company: 'companyName',
  jobTitle: 'jobTitle',
  website: 'website',
  linkedIn: 'linkedinUrl',
  address: 'address',
  note: 'note',
  bio: 'bio',
  image: 'profileImageUrl',
  card: 'businessCardImageUrl',
} as const;

/** The v1 lead a v2 lead was made from (docs/v2.md, "Field mapping from v1"). */
export function toV1(lead: Lead): V1Lead {
  const sf = lead.systemFields;
  const v1: V1Lead = {
    id: lead.legacyLeadId,
    epoch: Date.parse(lead.captureDatetime),
    userId: lead.assignedMembers[0] as number,
    userPid: sf.userPid,
    ...(lead.v1Fields as { time: string; userEmail: string }), // time, userEmail, flags, lat/long text…
  };
  for (const [v1Name, v2Name] of Object.entries(FROM_SYSTEM_FIELDS)) {
    const value = sf[v2Name];
    if (value !== null) v1[v1Name] = value;
  }
  if (sf.location !== null && sf.location.label !== null) v1.location = sf.location.label;
  return v1;
}

/** v1's largest `start`/`end`, and the last millisecond v2 (four-digit years) can name. */
const V1_MAX_EPOCH = 8_640_000_000_000_000;
const V2_LAST_EPOCH = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function epochArg(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > V1_MAX_EPOCH) {
    throw new RangeError(`${name} must be an integer from 0 to ${V1_MAX_EPOCH} (epoch milliseconds)`);
  }
  return value;
}

type Scope = SearchBody['filters'];

export type LeadlineV1 = ReturnType<typeof createLeadlineV1>;

export function createLeadlineV1(options: LeadlineV1Options) {
  const leadline = createLeadline(options);
  let me: Promise<Me> | undefined;
  let warned = false;
  /** The key's warnings, once, beside the first call; never that call's failure. */
  const warn = (): void => {
    if (warned || options.onWarning === undefined) return;
    warned = true;
    const onWarning = options.onWarning;
    leadline.deprecations().then(
      (d) => {
        for (const w of warningsOf(d)) onWarning(w);
      },
      () => {
        warned = false;
      },
    );
  };
  /** The key's member and team: asked once, kept (a key's member and team never change). */
  const whoami = (): Promise<Me> => {
    me ??= leadline.me().catch((err: unknown) => {
      me = undefined;
      throw err;
    });
    return me;
  };

  async function last(scope: Scope): Promise<V1Lead[]> {
    warn();
    const body: SearchBody = { filters: scope, sort: { field: 'timestamp', direction: 'DESC' }, limit: 1 };
    for await (const page of leadline.leads.searchPages(body)) return page.leads.map(toV1);
    return [];
  }

  /** `scope` is asked for once the arguments are known good: bad ones make no call. */
  async function range(
    scope: () => Promise<Scope>,
    start: number,
    end: number | undefined,
  ): Promise<V1Lead[]> {
    epochArg('start', start);
    if (end !== undefined && epochArg('end', end) < start)
      throw new RangeError('end must not be before start');
    warn();
    // Past v2's last millisecond no lead can be: an empty window there still asks the server,
    // so the key's rights are checked as v1 checks them.
    const from = Math.min(start, V2_LAST_EPOCH);
    const to = start > V2_LAST_EPOCH ? V2_LAST_EPOCH : end === undefined || end > V2_LAST_EPOCH ? null : end;
    const filters: Scope = { ...(await scope()), startTime: iso(from) };
    if (to !== null) filters.endTime = iso(to);
    const body: SearchBody = { filters, sort: { field: 'timestamp', direction: 'ASC' }, limit: 1000 };
    const out: V1Lead[] = [];
    for await (const lead of leadline.leads.search(body)) out.push(toV1(lead));
    return out;
  }

  return {
    /** 1. The caller's newest lead: `[]` or `[lead]`. */
    getLastLead: async () => last({ assignedMemberIds: [(await whoami()).member.id] }),
    /** 2. The team's newest lead (team admins). */
    getLastLeadTeam: async () => last({ teamId: (await whoami()).team.id }),
    /** 3. A subteam's newest lead, by its current members (team admins, that subteam's admins). */
    getLastLeadSubTeam: async (subTeamId: number) => {
      if (!Number.isSafeInteger(subTeamId) || subTeamId < 1) {
        throw new RangeError('subTeamId must be a positive integer');
      }
      return last({ subteamIds: [subTeamId] });
    },
    /** 4. The caller's leads with start <= epoch < end (no end: from start on), oldest first. */
    getLeadsTimeRange: (start: number, end?: number) =>
      range(async () => ({ assignedMemberIds: [(await whoami()).member.id] }), start, end),
    /** 5. The team's leads in the range (team admins), oldest first. */
    getLeadsTimeRangeForTeam: (start: number, end?: number) =>
      range(async () => ({ teamId: (await whoami()).team.id }), start, end),
  };
}

const iso = (epoch: number): string => new Date(epoch).toISOString();
