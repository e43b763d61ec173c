import type { Caller } from '../directory/directory.js';
import { AppError } from '../shared/errors.js';

/**
 * The retirement of v1 (docs/v1-reference.md C7; docs/v2.md): after the
 * sunset every v1 call is gone; during a brownout window the calls it covers are gone for the
 * window; after the freeze, keys made since without a legacy grant are refused. Each refusal
 * tells the client what to do instead.
 */

export interface V1Times {
  deprecatedAt: number;
  frozenAt: number;
  sunsetAt: number | null;
}

/** A window during which v1 answers 410; `keyIds` null: every key. */
export interface Brownout {
  id: number;
  startsAt: number;
  endsAt: number;
  keyIds: number[] | null;
  createdAt: number;
}

/**
 * The v2 request that returns what a v1 operation returned (docs/v1-migration.md): the one
 * `successor` shape of the three retirement problems (frozen, brownout, sunset). `body` is null
 * only when the refused call names no v1 operation or has no valid key, so its scope is unknown.
 */
export interface SuccessorRequest {
  method: 'POST';
  path: '/api/pub/v2/leads/search';
  body: Record<string, unknown> | null;
}

/** The successor of a call whose operation or caller is unknown: the operation, its body left to the client. */
export const SEARCH_SUCCESSOR: SuccessorRequest = {
  method: 'POST',
  path: '/api/pub/v2/leads/search',
  body: null,
};

/** 10000-01-01T00:00:00Z: the first instant a four-digit-year ISO date cannot write. */
const V2_LAST_INSTANT = 253_402_300_800_000;

export function isSunset(times: V1Times, now: number): boolean {
  return times.sunsetAt !== null && now >= times.sunsetAt;
}

export function sunsetError(successor: SuccessorRequest, guide: string): AppError {
  return new AppError(
    'v1-sunset',
    'The v1 lead retrieval interface has been retired. Use the v2 request in `successor` instead.',
    { successor, migrationGuide: guide },
  );
}

/** The brownout window covering `now` for this key, if any (the one ending last). */
export function activeBrownout(brownouts: readonly Brownout[], keyId: number, now: number): Brownout | null {
  let found: Brownout | null = null;
  for (const b of brownouts) {
    if (now < b.startsAt || now >= b.endsAt) continue;
    if (b.keyIds !== null && !b.keyIds.includes(keyId)) continue;
    if (found === null || b.endsAt > found.endsAt) found = b;
  }
  return found;
}

/**
 * The next brownout window that covers this key and starts within `horizonMs` from `now` (the
 * earliest), if any: announced on its v1 answers before the day comes (`brownoutWarning`).
 */
export function scheduledBrownout(
  brownouts: readonly Brownout[],
  keyId: number,
  now: number,
  horizonMs: number,
): Brownout | null {
  let found: Brownout | null = null;
  for (const b of brownouts) {
    if (b.startsAt <= now || b.startsAt > now + horizonMs) continue;
    if (b.keyIds !== null && !b.keyIds.includes(keyId)) continue;
    if (found === null || b.startsAt < found.startsAt) found = b;
  }
  return found;
}

/**
 * The `Warning` (RFC 9111 §5.5's field, as Kubernetes sends for deprecated calls: code 299, no
 * agent) that announces a scheduled brownout: a fixed text with the window as an ISO 8601
 * interval, so a client log shows it and a client can read it (docs/v1-deprecation-policy.md).
 */
export function brownoutWarning(b: Brownout): string {
  let text = WARNINGS.get(b);
  if (text === undefined) {
    const window = `${new Date(b.startsAt).toISOString()}/${new Date(b.endsAt).toISOString()}`;
    text = `299 - "v1-brownout-scheduled ${window}: v1 answers 410 to this key in this window; move to the v2 request in the migration guide"`;
    WARNINGS.set(b, text);
  }
  return text;
}

/**
 * Each window's Warning, made once: it goes on every v1 answer to the keys it covers, and the
 * brownout cache hands out the same window objects between its reads (bench/RESULTS.md: the
 * text made per answer cost ~10 % of a getLastLead).
 */
const WARNINGS = new WeakMap<Brownout, string>();

export function brownoutError(b: Brownout, successor: SuccessorRequest, guide: string): AppError {
  const ends = new Date(b.endsAt).toISOString();
  return new AppError(
    'v1-brownout',
    `v1 is switched off for this key until ${ends}, a rehearsal of its retirement. Move to the v2 request in \`successor\`.`,
    { brownoutEndsAt: ends, successor, migrationGuide: guide },
  );
}

/** Whole seconds from `now` to the end of the brownout, at least 1 (`Retry-After`, RFC 9110 §10.2.3). */
export function brownoutRetryAfter(b: Brownout, now: number): number {
  return Math.max(1, Math.ceil((b.endsAt - now) / 1000));
}

/** Keys made after the freeze reach v1 only with a legacy grant. */
export function isFrozenOut(times: V1Times, caller: Pick<Caller, 'keyCreatedAt' | 'legacyV1'>): boolean {
  return caller.keyCreatedAt > times.frozenAt && !caller.legacyV1;
}

/**
 * The detail names both ways out: the client's (the v2 request in `successor`) and the
 * operator's (a legacy grant for this key, by its id — the caller's own key, nothing to hide).
 */
export function frozenError(
  successor: SuccessorRequest,
  guide: string,
  keyId: number,
  frozenAt: number,
): AppError {
  return new AppError(
    'v1-closed-to-new-integrations',
    `This key was created after v1 closed to new integrations (${new Date(frozenAt).toISOString()}). Use the v2 request in \`successor\` instead; or, if this integration must still call v1, the operator grants this key legacy v1 access: \`leadline keys grant-legacy-v1 ${keyId}\`.`,
    { successor, migrationGuide: guide },
  );
}

/**
 * The v2 search equal to a v1 call: the same scope, DESC + limit 1 for the "last lead"
 * operations, the same half-open range in ascending order for the range operations.
 */
export function successorRequest(
  operation: string,
  caller: Pick<Caller, 'teamId' | 'memberId'>,
  query: Record<string, unknown>,
): SuccessorRequest {
  const last = { sort: { field: 'timestamp', direction: 'DESC' }, limit: 1 };
  const range = (): Record<string, unknown> => {
    const at = (v: unknown) => (typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : null);
    const start = at(query.start);
    const end = at(query.end);
    const times: Record<string, string> = {};
    // v2 instants have four-digit years: a bound past 9999 is no bound at all in practice.
    const inV2 = (ms: number | null) => ms !== null && ms < V2_LAST_INSTANT;
    if (inV2(start)) times.startTime = new Date(start as number).toISOString();
    if (inV2(end)) times.endTime = new Date(end as number).toISOString();
    return times;
  };
  const asc = { sort: { field: 'timestamp', direction: 'ASC' }, limit: 1000 };
  const subteam =
    typeof query.subTeamId === 'string' && /^[0-9]+$/.test(query.subTeamId) ? Number(query.subTeamId) : null;
  const body: Record<string, unknown> = (() => {
    switch (operation) {
      case 'getLastLeadTeam':
        return { filters: { teamId: caller.teamId }, ...last };
      case 'getLastLeadSubTeam':
        return { filters: { subteamIds: subteam === null ? [] : [subteam] }, ...last };
      case 'getLeadsTimeRange':
        return { filters: { assignedMemberIds: [caller.memberId], ...range() }, ...asc };
      case 'getLeadsTimeRangeForTeam':
        return { filters: { teamId: caller.teamId, ...range() }, ...asc };
      default:
        return { filters: { assignedMemberIds: [caller.memberId] }, ...last };
    }
  })();
  return { method: 'POST', path: '/api/pub/v2/leads/search', body };
}
