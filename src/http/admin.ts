import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { requireTeamAdmin } from '../directory/access.js';
import { listKeys } from '../keys/list-keys.js';
import type { RateLimiter } from '../rate-limit/fixed-window.js';
import {
  MAX_REPORT_DAYS,
  parseReportDays,
  v1CallsByDay,
  v1Report,
  windowStart,
} from '../retirement/report.js';
import { invalidParams } from '../shared/errors.js';
import type { Store } from '../store.js';
import { authenticate } from './auth.js';
import { countAgainstQuota } from './quota.js';
import { routeSchema } from './route-schema.js';

export interface AdminDeps {
  config: Config;
  store: Store;
  rateLimiter: RateLimiter;
  now: () => number;
}

/**
 * The admin surface of v1's retirement: the report of `leadline v1 report` for the caller's team
 * (team admin keys only), plus the v1 calls per day for a chart. The page that shows both is
 * served with the other pages (src/http/pages.ts), under their headers.
 */
export async function adminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/api/admin/v1/report', { schema: routeSchema('v1Report') }, async (request, reply) => {
    const now = deps.now();
    const caller = await authenticate(request, deps.store.keys, now);
    (await countAgainstQuota(reply, deps.rateLimiter, caller))();
    requireTeamAdmin(caller);
    const days = parseDays((request.query as Record<string, unknown>).days);
    const keys = await listKeys(deps.store, { teamId: caller.teamId });
    const usage = await deps.store.retirement.usage(null);
    const report = v1Report(keys, usage, days, now);
    const ids = new Set(keys.map((k) => k.id));
    const recent = usage.filter((r) => r.day >= windowStart(days, now));
    reply.header('cache-control', 'no-store');
    return { ...report, v1CallsByDay: v1CallsByDay(recent, ids, days, now) };
  });
}

function parseDays(value: unknown): number {
  if (value === undefined) return 30;
  const days = typeof value === 'string' ? parseReportDays(value) : null;
  if (days === null) {
    throw invalidParams([{ name: 'days', reason: `a whole number of days, 1 to ${MAX_REPORT_DAYS}` }]);
  }
  return days;
}
