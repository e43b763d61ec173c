import { type CallsByOperation, v1CallsByOperation } from '../../retirement/drain.js';
import type { Brownout } from '../../retirement/gates.js';
import { parseReportDays, type V1Report, v1Report, windowStart } from '../../retirement/report.js';
import { type ConsoleDeps, ConsolePageError } from './console-deps.js';
import { keysInView } from './keys-page.js';

export interface V1View {
  days: number;
  report: V1Report;
  calls: CallsByOperation;
  /** Key id → display prefix and member e-mail, for the tables. */
  keys: Map<number, { display: string; email: string }>;
  /** The brownouts that reach the team's keys, naming only the team's keys. */
  brownouts: Brownout[];
}

/** `?days=` of the v1 views: 30 unless given; 1 to 3660. */
export function daysParam(value: unknown): number {
  if (value === undefined || value === '') return 30;
  const days = typeof value === 'string' ? parseReportDays(value) : null;
  if (days === null)
    throw new ConsolePageError(400, 'Not shown', 'Days must be a whole number from 1 to 3660.');
  return days;
}

/** The report, chart data and brownouts of the team in view (every team's for null). */
export async function v1View(deps: ConsoleDeps, team: number | null, days: number): Promise<V1View> {
  const now = deps.now();
  const keys = await keysInView(deps, team);
  const ids = new Set(keys.map((k) => k.id));
  // Every row: the report's "last v1 call" and "migrated" look before the window too.
  const usage = await deps.store.retirement.usage(null);
  const emails = new Map((await deps.store.directory.members(team)).map((m) => [m.id, m.email]));
  const brownouts = (await deps.store.retirement.brownouts()).flatMap((b): Brownout[] => {
    if (team === null || b.keyIds === null) return [b];
    const mine = b.keyIds.filter((id) => ids.has(id));
    return mine.length === 0 ? [] : [{ ...b, keyIds: mine }];
  });
  return {
    days,
    report: v1Report(keys, usage, days, now),
    calls: v1CallsByOperation(
      usage.filter((r) => r.day >= windowStart(days, now)),
      ids,
      days,
      now,
    ),
    keys: new Map(
      keys.map((k) => [k.id, { display: k.display, email: emails.get(k.memberId) ?? String(k.memberId) }]),
    ),
    brownouts,
  };
}
