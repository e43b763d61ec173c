import type { Brownout, V1Times } from './gates.js';
import { V1_OPERATION_NAMES, type V1Report } from './report.js';
import type { UsageRow } from './usage.js';
import { utcDay } from './usage.js';

/**
 * How v1 drains, as the console shows it (docs/console.md "Views"): calls per day by operation, the share of
 * keys that have moved off v1, and the retirement's dates on one timeline. Built from the same
 * report as `leadline v1 report`.
 */

const DAY_MS = 86_400_000;

export interface CallsByOperation {
  /** UTC days of the window, oldest first. */
  days: string[];
  /** Per v1 operation, its calls on each day (same order as `days`). */
  series: { operation: string; calls: number[] }[];
}

export function v1CallsByOperation(
  usage: readonly UsageRow[],
  keyIds: ReadonlySet<number>,
  days: number,
  now: number,
): CallsByOperation {
  const dayList: string[] = [];
  for (let i = days - 1; i >= 0; i--) dayList.push(utcDay(now - i * DAY_MS));
  const at = new Map(dayList.map((d, i) => [d, i]));
  const series = V1_OPERATION_NAMES.map((operation) => ({
    operation,
    calls: dayList.map(() => 0) as number[],
  }));
  const byOp = new Map(series.map((s) => [s.operation as string, s]));
  for (const r of usage) {
    const i = at.get(r.day);
    const s = byOp.get(r.operation);
    if (r.api !== 'v1' || !keyIds.has(r.keyId) || i === undefined || s === undefined) continue;
    s.calls[i] = (s.calls[i] ?? 0) + r.count;
  }
  return { days: dayList, series };
}

export interface DrainShare {
  /** Keys that have ever called v1. */
  calledV1: number;
  /** Of those, keys whose v1 calls all lie before the window. */
  migrated: number;
}

/** Keys still calling v1 in the window: served or refused, they have not moved yet. */
export function stillOnV1(report: V1Report): V1Report['keys'] {
  return report.keys.filter((k) => k.v1Calls > 0);
}

export function drainShare(report: V1Report): DrainShare {
  const migrated = report.keys.filter((k) => k.status === 'migrated').length;
  return { calledV1: stillOnV1(report).length + migrated, migrated };
}

export interface TimelineEntry {
  at: number;
  kind: 'deprecation' | 'freeze' | 'sunset' | 'brownout-start' | 'brownout-end';
  label: string;
}

/** The retirement's dates and the brownout windows, in time order. */
export function retirementTimeline(times: V1Times, brownouts: readonly Brownout[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    { at: times.deprecatedAt, kind: 'deprecation', label: 'v1 deprecated' },
    { at: times.frozenAt, kind: 'freeze', label: 'v1 closed to new keys (freeze)' },
  ];
  if (times.sunsetAt !== null)
    entries.push({ at: times.sunsetAt, kind: 'sunset', label: 'v1 sunset: gone for every key' });
  for (const b of brownouts) {
    const whom = b.keyIds === null ? 'every key' : `keys ${b.keyIds.join(', ')}`;
    entries.push({ at: b.startsAt, kind: 'brownout-start', label: `brownout ${b.id} starts (${whom})` });
    entries.push({ at: b.endsAt, kind: 'brownout-end', label: `brownout ${b.id} ends` });
  }
  return entries.sort((a, b) => a.at - b.at);
}
