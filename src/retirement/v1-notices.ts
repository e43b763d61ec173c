import type { ApiKey, KeyStore } from '../keys/keys.port.js';
import { type Brownout, type SuccessorRequest, successorRequest, type V1Times } from './gates.js';
import type { RetirementStore } from './retirement.port.js';
import { utcDay } from './usage.js';

/**
 * v1 notices (docs/v1-migration.md "Notices"): per team, which of its keys called v1 in a window
 * of whole UTC days ending yesterday, what each called, the next brownout that covers any of
 * them and the sunset — the facts the `v1.usage` event (send-v1-usage.ts) pushes and
 * `leadline v1 notices` prints. Yesterday, not today: a day is only counted once it is over, so
 * a notice about day D is final, and no notice follows the first day without calls.
 */

export const NOTICE_DEFAULT_DAYS = 1;
export const NOTICE_MAX_DAYS = 366;

const DAY_MS = 86_400_000;

/** One v1 operation a key called in the window. */
export interface NoticeCall {
  operation: string;
  count: number;
  successor: SuccessorRequest;
}

export interface NoticeKey {
  key: ApiKey;
  /** By operation name; never empty. */
  calls: NoticeCall[];
}

/** The next brownout over any of the notice's keys; `keyIds`: those of them it covers (null: every key). */
export interface NoticeBrownout {
  startsAt: number;
  endsAt: number;
  keyIds: number[] | null;
}

export interface TeamNotice {
  teamId: number;
  /** The first and last UTC day counted (YYYY-MM-DD). */
  from: string;
  to: string;
  /** The team's keys that called v1 in the window, by id. */
  keys: NoticeKey[];
  nextBrownout: NoticeBrownout | null;
  sunsetAt: number | null;
  migrationGuide: string;
}

export interface NoticesInput {
  /** Whole UTC days before today's: 1 is yesterday alone. */
  days: number;
  now: number;
  /** Only this team's notice; absent: every team's. */
  teamId?: number;
  times: Pick<V1Times, 'sunsetAt'>;
  brownouts: readonly Brownout[];
  migrationGuide: string;
}

/** The window's first and last day: `days` whole UTC days, the last of them yesterday. */
export function noticeWindow(days: number, now: number): { from: string; to: string } {
  return { from: utcDay(now - days * DAY_MS), to: utcDay(now - DAY_MS) };
}

/** The notices of the window, one per team whose keys called v1 in it, by team. */
export async function v1NoticesOf(
  ports: { keys: Pick<KeyStore, 'list'>; retirement: Pick<RetirementStore, 'v1UsageBetween'> },
  input: NoticesInput,
): Promise<TeamNotice[]> {
  const { from, to } = noticeWindow(input.days, input.now);
  const counts = new Map<number, Map<string, number>>();
  for (const r of await ports.retirement.v1UsageBetween(from, to)) {
    const ops = counts.get(r.keyId) ?? new Map<string, number>();
    counts.set(r.keyId, ops);
    ops.set(r.operation, (ops.get(r.operation) ?? 0) + r.count);
  }
  const byTeam = new Map<number, NoticeKey[]>();
  for (const key of (await ports.keys.list()).sort((a, b) => a.id - b.id)) {
    const ops = counts.get(key.id);
    if (ops === undefined || (input.teamId !== undefined && key.teamId !== input.teamId)) continue;
    const calls = [...ops]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, count]) => ({ operation, count, successor: successorRequest(operation, key, {}) }));
    byTeam.set(key.teamId, [...(byTeam.get(key.teamId) ?? []), { key, calls }]);
  }
  return [...byTeam]
    .sort(([a], [b]) => a - b)
    .map(([teamId, keys]) => ({
      teamId,
      from,
      to,
      keys,
      nextBrownout: nextBrownout(input.brownouts, keys, input.now),
      sunsetAt: input.times.sunsetAt,
      migrationGuide: input.migrationGuide,
    }));
}

/** The brownout not yet ended that starts first among those covering any of `keys`. */
function nextBrownout(brownouts: readonly Brownout[], keys: NoticeKey[], now: number): NoticeBrownout | null {
  const ids = keys.map((k) => k.key.id);
  const next = brownouts
    .filter((b) => b.endsAt > now && (b.keyIds === null || b.keyIds.some((id) => ids.includes(id))))
    .sort((a, b) => a.startsAt - b.startsAt || a.id - b.id)[0];
  if (next === undefined) return null;
  return {
    startsAt: next.startsAt,
    endsAt: next.endsAt,
    keyIds: next.keyIds === null ? null : ids.filter((id) => next.keyIds?.includes(id)),
  };
}
