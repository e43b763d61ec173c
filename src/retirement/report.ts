import type { ApiKey } from '../keys/keys.port.js';
import { type UsageRow, utcDay } from './usage.js';

/**
 * "Who still calls v1?" — the report of `leadline v1 report` and the admin API
 * (docs/cli.md "v1 report", exact JSON shape). Per key: v1 calls in the window, by operation, the
 * last v1 call ever and its user agent, v2 calls in the window, and a status:
 * `on-v1` (a v1 call served in the window), `refused` (v1 calls in the window, every one
 * refused), `migrated` (v1 calls, all before the window), `v2-only` (v2 calls, never v1) or
 * `unused`. A call is served when its status is below 400; refused otherwise — the freeze's 403,
 * a brownout's or the sunset's 410, and any other error the key got (docs/cli.md "v1 report").
 */

export const V1_OPERATION_NAMES = [
  'getLastLead',
  'getLastLeadTeam',
  'getLastLeadSubTeam',
  'getLeadsTimeRange',
  'getLeadsTimeRangeForTeam',
] as const;

/** Every status a key can have in the report; `leadline_v1_keys` exports one series for each. */
export const KEY_STATUSES = ['on-v1', 'refused', 'migrated', 'v2-only', 'unused'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export interface ReportKey {
  keyId: number;
  memberId: number;
  status: KeyStatus;
  v1Calls: number;
  /** Of `v1Calls`: answered (status below 400), and refused (400 and above). */
  v1Served: number;
  v1Refused: number;
  v1ByOperation: Record<string, number>;
  v1LastSeen: string | null;
  userAgent: string | null;
  v2Calls: number;
}

export interface V1Report {
  windowDays: number;
  keys: ReportKey[];
}

const DAY_MS = 86_400_000;
/** Longest report window: ten years. */
export const MAX_REPORT_DAYS = 3660;

/** The `--days` / `?days=` of a report: a whole number from 1 to MAX_REPORT_DAYS, else null. */
export function parseReportDays(value: string): number | null {
  const n = /^[0-9]{1,5}$/.test(value) ? Number(value) : 0;
  return n >= 1 && n <= MAX_REPORT_DAYS ? n : null;
}

/** First UTC day of a window of `days` days ending today. */
export function windowStart(days: number, now: number): string {
  return utcDay(now - (days - 1) * DAY_MS);
}

export function v1Report(keys: ApiKey[], usage: UsageRow[], days: number, now: number): V1Report {
  const since = windowStart(days, now);
  const byKey = new Map<number, UsageRow[]>();
  for (const row of usage) {
    const list = byKey.get(row.keyId);
    if (list === undefined) byKey.set(row.keyId, [row]);
    else list.push(row);
  }
  const report = [...keys]
    .sort((a, b) => a.id - b.id)
    .map((key): ReportKey => {
      const rows = byKey.get(key.id) ?? [];
      const v1 = rows.filter((r) => r.api === 'v1');
      const v1InWindow = v1.filter((r) => r.day >= since);
      const v1ByOperation: Record<string, number> = Object.fromEntries(
        V1_OPERATION_NAMES.map((op) => [op, 0]),
      );
      for (const r of v1InWindow) v1ByOperation[r.operation] = (v1ByOperation[r.operation] ?? 0) + r.count;
      const last = v1.reduce<UsageRow | null>(
        (best, r) => (best === null || r.lastSeen > best.lastSeen ? r : best),
        null,
      );
      const v1Calls = v1InWindow.reduce((n, r) => n + r.count, 0);
      const v1Served = v1InWindow.filter((r) => r.status < 400).reduce((n, r) => n + r.count, 0);
      const v2Ever = rows.some((r) => r.api === 'v2');
      const v2Calls = rows.filter((r) => r.api === 'v2' && r.day >= since).reduce((n, r) => n + r.count, 0);
      const status: KeyStatus =
        v1Served > 0
          ? 'on-v1'
          : v1Calls > 0
            ? 'refused'
            : v1.length > 0
              ? 'migrated'
              : v2Ever
                ? 'v2-only'
                : 'unused';
      return {
        keyId: key.id,
        memberId: key.memberId,
        status,
        v1Calls,
        v1Served,
        v1Refused: v1Calls - v1Served,
        v1ByOperation,
        v1LastSeen: last === null ? null : new Date(last.lastSeen).toISOString(),
        userAgent: last?.userAgent ?? null,
        v2Calls,
      };
    });
  return { windowDays: days, keys: report };
}

/** v1 calls per UTC day over the window, oldest first, days without calls included (the chart). */
export function v1CallsByDay(
  usage: UsageRow[],
  keyIds: Set<number>,
  days: number,
  now: number,
): { day: string; calls: number }[] {
  const out = new Map<string, number>();
  for (let i = days - 1; i >= 0; i--) out.set(utcDay(now - i * DAY_MS), 0);
  for (const r of usage) {
    if (r.api !== 'v1' || !keyIds.has(r.keyId) || !out.has(r.day)) continue;
    out.set(r.day, (out.get(r.day) ?? 0) + r.count);
  }
  return [...out].map(([day, calls]) => ({ day, calls }));
}
