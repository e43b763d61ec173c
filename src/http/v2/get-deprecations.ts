import {
  DEPRECATIONS_DEFAULT_DAYS,
  DEPRECATIONS_MAX_DAYS,
  type DeprecatedCall,
  deprecationsOf,
} from '../../retirement/deprecations.js';
import type { V2DeprecationsBody } from '../../schemas/v2-deprecations.js';
import { invalidParams } from '../../shared/errors.js';
import type { V2Handler } from './handler.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * GET /api/pub/v2/me/deprecations (docs/v1-migration.md "Your own deprecated calls"): the v1
 * operations the presented key called (`scope=team`: every key of a team admin's team) in the
 * last `days` days, from the usage ledger. Any valid key may ask, one v1 refuses included: it is
 * the caller v1's retirement concerns most.
 */
export const getDeprecations: V2Handler = async (
  { caller, config, store, now },
  request,
): Promise<V2DeprecationsBody> => {
  const query = request.query as Record<string, unknown>;
  const scope = query.scope ?? 'key';
  const days = query.days === undefined ? DEPRECATIONS_DEFAULT_DAYS : Number(query.days);
  const problems: { name: string; reason: string }[] = [];
  if (scope !== 'key' && scope !== 'team') problems.push({ name: 'scope', reason: 'key or team' });
  if (
    !(typeof query.days !== 'object' && Number.isInteger(days) && days >= 1 && days <= DEPRECATIONS_MAX_DAYS)
  )
    problems.push({ name: 'days', reason: `an integer from 1 to ${DEPRECATIONS_MAX_DAYS}` });
  if (problems.length > 0) throw invalidParams(problems);
  const found = await deprecationsOf(store, {
    caller,
    scope: scope as 'key' | 'team',
    days,
    now,
    times: config.v1,
    brownouts: await store.retirement.brownouts(),
  });
  return {
    data: {
      since: found.since,
      days,
      sunsetAt: config.v1.sunsetAt === null ? null : iso(config.v1.sunsetAt),
      migrationGuide: `${config.publicUrl}/docs/v1-migration`,
      keys: found.keys.map(({ key, standing, calls }) => ({
        keyId: key.id,
        prefix: key.display,
        label: key.label,
        memberId: key.memberId,
        v1: standing.v1,
        brownouts: standing.brownouts.map((b) => ({ startsAt: iso(b.startsAt), endsAt: iso(b.endsAt) })),
        calls: calls.map(callToWire),
      })),
    },
  };
};

function callToWire(c: DeprecatedCall): V2DeprecationsBody['data']['keys'][number]['calls'][number] {
  return {
    operation: c.operation,
    count: c.count,
    statuses: c.statuses,
    firstCall: iso(c.firstCall),
    lastCall: iso(c.lastCall),
    userAgent: c.userAgent,
    successor: { ...c.successor, body: c.successor.body ?? {} },
  };
}
