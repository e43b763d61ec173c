import type { Caller } from '../directory/directory.js';
import type { ApiKey, KeyStore } from '../keys/keys.port.js';
import { AppError } from '../shared/errors.js';
import {
  type Brownout,
  isFrozenOut,
  isSunset,
  type SuccessorRequest,
  successorRequest,
  type V1Times,
} from './gates.js';
import type { RetirementStore } from './retirement.port.js';
import { type UsageRow, utcDay } from './usage.js';

/**
 * v1's retirement as the caller sees it (docs/v1-migration.md "Your own deprecated calls"): what
 * a key — or, for a team admin, every key of the team — called of v1 in a window of days, read
 * from the usage ledger, with the v2 request that replaces each operation and where the key
 * stands (served, frozen out, the brownouts ahead of it, the sunset).
 */

export const DEPRECATIONS_DEFAULT_DAYS = 30;
/** The ledger keeps every day; a window beyond this answers slowly for little use. */
export const DEPRECATIONS_MAX_DAYS = 366;

const DAY_MS = 86_400_000;

/** One v1 operation a key called in the window. */
export interface DeprecatedCall {
  operation: string;
  count: number;
  /** Calls by HTTP status: refusals (a brownout's 410) count as calls too. */
  statuses: Record<string, number>;
  firstCall: number;
  lastCall: number;
  /** The user agent of the last call. */
  userAgent: string | null;
  successor: SuccessorRequest;
}

/** Where a key stands with v1 now. */
export interface KeyStanding {
  /** `served`: v1 answers it (outside brownouts); `frozen-out`: made after the freeze, no grant; `sunset`: v1 is gone. */
  v1: 'served' | 'frozen-out' | 'sunset';
  /** Brownout windows that cover this key and have not ended, by start. */
  brownouts: Brownout[];
  sunsetAt: number | null;
}

export interface KeyDeprecations {
  key: ApiKey;
  standing: KeyStanding;
  /** By operation name; empty for a key that called no v1 operation in the window. */
  calls: DeprecatedCall[];
  /** The window's v1 ledger rows of the key, by day (the console draws them per day). */
  rows: UsageRow[];
}

/** The window and the retirement's dates and windows the standing is read from. */
export interface DeprecationsWindow {
  days: number;
  now: number;
  times: V1Times;
  brownouts: readonly Brownout[];
}

export interface DeprecationsInput extends DeprecationsWindow {
  caller: Caller;
  /** `key`: the presented key; `team`: every key of the caller's team (team admins only). */
  scope: 'key' | 'team';
}

export interface Deprecations {
  /** The first UTC day the window holds (YYYY-MM-DD): `days` days, today included. */
  since: string;
  keys: KeyDeprecations[];
}

/** `GET /api/pub/v2/me/deprecations`: the presented key's, or its team's for a team admin. */
export async function deprecationsOf(
  ports: { keys: Pick<KeyStore, 'list'>; retirement: Pick<RetirementStore, 'v1UsageOfKeys'> },
  input: DeprecationsInput,
): Promise<Deprecations> {
  const { caller } = input;
  if (input.scope === 'team' && caller.role !== 'admin')
    throw new AppError('forbidden', 'Only a team admin’s key may read every key of the team (scope=team).');
  const keys = (await ports.keys.list(input.scope === 'key' ? caller.memberId : undefined)).filter((k) =>
    input.scope === 'key' ? k.id === caller.keyId : k.teamId === caller.teamId,
  );
  return keysDeprecations(ports, keys, input);
}

/** The deprecated calls and standing of these keys (the console's API health reads one). */
export async function keysDeprecations(
  ports: { retirement: Pick<RetirementStore, 'v1UsageOfKeys'> },
  keys: ApiKey[],
  window: DeprecationsWindow,
): Promise<Deprecations> {
  const since = utcDay(window.now - (window.days - 1) * DAY_MS);
  const rows = await ports.retirement.v1UsageOfKeys(
    keys.map((k) => k.id),
    since,
  );
  return {
    since,
    keys: keys.map((key) => {
      const own = rows.filter((r) => r.keyId === key.id);
      return { key, standing: standingOf(key, window), calls: callsOf(own, key), rows: own };
    }),
  };
}

/** The window's ledger rows of one key, one entry per operation (its days and statuses added up). */
function callsOf(rows: UsageRow[], key: ApiKey): DeprecatedCall[] {
  const byOperation = new Map<string, DeprecatedCall>();
  for (const r of rows) {
    let call = byOperation.get(r.operation);
    if (call === undefined) {
      call = {
        operation: r.operation,
        count: 0,
        statuses: {},
        firstCall: r.firstSeen,
        lastCall: r.lastSeen,
        userAgent: r.userAgent,
        successor: successorRequest(r.operation, key, {}),
      };
      byOperation.set(r.operation, call);
    }
    call.count += r.count;
    call.statuses[String(r.status)] = (call.statuses[String(r.status)] ?? 0) + r.count;
    call.firstCall = Math.min(call.firstCall, r.firstSeen);
    if (r.lastSeen >= call.lastCall) {
      call.lastCall = r.lastSeen;
      call.userAgent = r.userAgent;
    }
  }
  return [...byOperation.values()].sort((a, b) => a.operation.localeCompare(b.operation));
}

function standingOf(key: ApiKey, input: DeprecationsWindow): KeyStanding {
  const { times, now } = input;
  const v1 = isSunset(times, now)
    ? 'sunset'
    : isFrozenOut(times, { keyCreatedAt: key.createdAt, legacyV1: key.legacyV1 })
      ? 'frozen-out'
      : 'served';
  const brownouts =
    v1 === 'sunset'
      ? []
      : input.brownouts
          .filter((b) => b.endsAt > now && (b.keyIds === null || b.keyIds.includes(key.id)))
          .sort((a, b) => a.startsAt - b.startsAt);
  return { v1, brownouts, sunsetAt: times.sunsetAt };
}
