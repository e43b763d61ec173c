import type { KeyStore } from '../keys/keys.port.js';
import type { V1UsageEvent } from '../schemas/v1-usage-event.js';
import { formatInstant } from '../shared/instant.js';
import { uuid7 } from '../shared/uuid7.js';
import type { Brownout, V1Times } from './gates.js';
import type { RetirementStore } from './retirement.port.js';
import { utcDay } from './usage.js';
import { type TeamNotice, v1NoticesOf } from './v1-notices.js';

/**
 * The daily `v1.usage` event (docs/webhooks.md "v1.usage"): for every team whose keys called v1
 * yesterday (UTC), one notice to its endpoints that list `v1.usage`. Every instance may run it,
 * as often as it likes: the store's claim of (team, day) lets one notice through per team and
 * day. A day is reported once it is over and `settleMs` more have passed, so every instance's
 * ledger has written its last counts of the day (the ledger flushes every few seconds).
 */

export const V1_USAGE_EVENT = 'v1.usage';
const DAY_MS = 86_400_000;

export interface SendV1UsageInput {
  now: number;
  times: Pick<V1Times, 'sunsetAt'>;
  brownouts: readonly Brownout[];
  migrationGuide: string;
  /** How long after midnight UTC yesterday's counts are taken as final. */
  settleMs: number;
}

export interface SendV1UsageResult {
  /** The UTC day reported; null: too early in the day to report the day before. */
  day: string | null;
  /** Teams whose notice this call wrote, with how many deliveries each. */
  sent: { teamId: number; deliveries: number }[];
  /** Teams whose notice for the day was written before (by any instance). */
  sentBefore: number[];
  /** Teams with v1 calls and no endpoint taking `v1.usage`. */
  noEndpoint: number[];
}

/** The body of a `v1.usage` delivery: the notice of one day, no personal data. */
export function v1UsageEnvelope(notice: TeamNotice, now: number): V1UsageEvent {
  const b = notice.nextBrownout;
  return {
    type: V1_USAGE_EVENT,
    timestamp: formatInstant(now),
    data: {
      day: notice.to,
      keys: notice.keys.map(({ key, calls }) => ({
        keyId: key.id,
        prefix: key.display,
        label: key.label,
        memberId: key.memberId,
        calls: calls.map((c) => ({
          operation: c.operation,
          count: c.count,
          successor: { ...c.successor, body: c.successor.body ?? {} },
        })),
      })),
      nextBrownout:
        b === null
          ? null
          : { startsAt: formatInstant(b.startsAt), endsAt: formatInstant(b.endsAt), keyIds: b.keyIds },
      sunsetAt: notice.sunsetAt === null ? null : formatInstant(notice.sunsetAt),
      migrationGuide: notice.migrationGuide,
    },
  };
}

/** Writes yesterday's `v1.usage` notices that no instance has written yet. */
export async function sendV1UsageNotices(
  ports: {
    keys: Pick<KeyStore, 'list'>;
    retirement: Pick<RetirementStore, 'v1UsageBetween' | 'sendV1Notice'>;
  },
  input: SendV1UsageInput,
): Promise<SendV1UsageResult> {
  const result: SendV1UsageResult = { day: null, sent: [], sentBefore: [], noEndpoint: [] };
  const today = Math.floor(input.now / DAY_MS) * DAY_MS;
  if (input.now < today + input.settleMs) return result;
  result.day = utcDay(today - DAY_MS);
  const notices = await v1NoticesOf(ports, { ...input, days: 1 });
  for (const notice of notices) {
    const outcome = await ports.retirement.sendV1Notice({
      teamId: notice.teamId,
      day: notice.to,
      eventId: uuid7(input.now),
      payload: JSON.stringify(v1UsageEnvelope(notice, input.now)),
      createdAt: input.now,
    });
    if (outcome.kind === 'sent') result.sent.push({ teamId: notice.teamId, deliveries: outcome.deliveries });
    else if (outcome.kind === 'sent-before') result.sentBefore.push(notice.teamId);
    else result.noEndpoint.push(notice.teamId);
  }
  return result;
}
