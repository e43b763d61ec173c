import type { DisableCause, Endpoint, SigningSecrets } from './webhook.js';

/**
 * Delivery rules (docs/webhooks.md "Delivery", "Retries and health"), without I/O: which endpoints an event goes to, when a failed
 * attempt is tried again, and what an attempt's answer means for the endpoint.
 */

/** Retries after the first attempt: the Standard Webhooks schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** Attempts a delivery gets at most: the first and one per retry. None is claimed after the last. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/**
 * A 2xx whose answer has ended within this is a success; anything later is a failed attempt. It
 * bounds the whole attempt: connecting, the status line and the answer (docs/reliability.md R20).
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Of an answer, this many bytes of UTF-8 are kept with the attempt (storable: no NUL). */
export const RECORDED_ANSWER_BYTES = 1024;
/** Of an answer, at most this much is read; the connection is closed after. */
export const READ_ANSWER_BYTES = 64 * 1024;
/**
 * How long a claimed delivery is leased to the instance that claimed it: an instance that dies
 * mid-attempt leaves it to another after this (at least once). Longer than an attempt can take.
 */
export const CLAIM_LEASE_MS = 60_000;

/** One delivery of an event to one endpoint, as claimed for an attempt. */
export interface ClaimedDelivery {
  id: number;
  /** The `webhook-id`: the event's, the same on every attempt. */
  eventId: string;
  endpointId: string;
  /** The endpoint's team: in-flight limits are kept per team. */
  teamId: number;
  url: string;
  /** The body, rendered once when the event was dispatched, so every attempt sends the same bytes. */
  payload: string;
  /** Attempts made, this one included. */
  attempt: number;
  secrets: SigningSecrets;
  /** Since when the endpoint has failed without a success (null: it has not). */
  failingSince: number | null;
}

/** What one attempt came to. `status` null: no HTTP answer (refused, timed out, connection error). */
export interface AttemptResult {
  at: number;
  status: number | null;
  latencyMs: number;
  /** The first RECORDED_ANSWER_BYTES of the answer, or why there was none. */
  answer: string;
}

/**
 * How a claim shares the due deliveries between teams (docs/webhooks.md "One team cannot hold up the others"): at most `perTeam` held by the
 * claimer per team — in flight and claimed ahead together — counting what `held` says it holds
 * already. Each team's oldest come first, then the oldest across teams: one team's backlog
 * never stands in front of another team's delivery.
 */
export interface TeamShare {
  perTeam: number;
  held: ReadonlyMap<number, number>;
}

export type AttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: number }
  | { kind: 'failed' }
  | { kind: 'failed-and-disable'; reason: string };

/** One attempt made, with its next step, as the delivery loop hands it to the store to record. */
export interface FinishedAttempt {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  outcome: AttemptOutcome;
}

/**
 * What a batch of attempts, in the order they finished, does to one endpoint — the same as
 * recording them one at a time would: `failing` null leaves failing_since alone; `clear` sets it
 * NULL (the last attempt succeeded); `since` with `restart` sets it (a failure after a success in
 * the batch), without keeps the earlier value if any (coalesce). `disable`: the last reason given.
 */
export interface EndpointChange {
  endpointId: string;
  failing: null | { clear: true } | { clear: false; since: number; restart: boolean };
  disable: { reason: string; at: number; cause: DisableCause } | null;
}

/** The endpoint changes of a batch of attempts, ordered by endpoint id (a stable lock order). */
export function endpointChanges(batch: readonly FinishedAttempt[]): EndpointChange[] {
  const byEndpoint = new Map<string, EndpointChange>();
  for (const { delivery, result, outcome } of batch) {
    let c = byEndpoint.get(delivery.endpointId);
    if (c === undefined) {
      c = { endpointId: delivery.endpointId, failing: null, disable: null };
      byEndpoint.set(delivery.endpointId, c);
    }
    if (outcome.kind === 'delivered') {
      c.failing = { clear: true };
      continue;
    }
    // A failure: failing_since becomes this attempt's time unless the endpoint is failing already.
    if (c.failing === null) c.failing = { clear: false, since: result.at, restart: false };
    else if (c.failing.clear) c.failing = { clear: false, since: result.at, restart: true };
    if (outcome.kind === 'failed-and-disable')
      c.disable = {
        reason: outcome.reason,
        at: result.at,
        cause: result.status === 410 ? 'gone' : 'failing',
      };
  }
  return [...byEndpoint.values()].sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1));
}

/** The delivery row an attempt leaves: its state, when it is due again, when it finished. */
export function deliveryAfter(a: FinishedAttempt): {
  state: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: number | null;
  finishedAt: number | null;
} {
  const { result: r, outcome: o } = a;
  if (o.kind === 'delivered') return { state: 'delivered', nextAttemptAt: null, finishedAt: r.at };
  if (o.kind === 'retry') return { state: 'pending', nextAttemptAt: o.at, finishedAt: null };
  return { state: 'failed', nextAttemptAt: null, finishedAt: r.at };
}

/** Whether a status is a success (any 2xx). */
export const succeeded = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/**
 * The next step after an attempt: delivered; retried on the schedule with ±20 % jitter (so
 * deliveries that failed together do not all come back together); or given up, disabling the
 * endpoint when it answered 410 Gone or has failed without a break for `disableAfterMs`.
 */
export function afterAttempt(
  d: Pick<ClaimedDelivery, 'attempt' | 'failingSince'>,
  r: AttemptResult,
  disableAfterMs: number,
  random: () => number = Math.random,
): AttemptOutcome {
  if (succeeded(r.status)) return { kind: 'delivered' };
  if (r.status === 410) return { kind: 'failed-and-disable', reason: 'the endpoint answered 410 Gone' };
  const failingSince = d.failingSince ?? r.at;
  if (r.at - failingSince >= disableAfterMs) {
    const days = Math.round(disableAfterMs / 86_400_000);
    return { kind: 'failed-and-disable', reason: `every attempt failed for ${days} days` };
  }
  const delay = RETRY_SCHEDULE_MS[d.attempt - 1];
  if (delay === undefined) return { kind: 'failed' };
  return { kind: 'retry', at: r.at + Math.round(delay * (0.8 + 0.4 * random())) };
}

/**
 * Whether an endpoint takes an event of `type` about a lead its `memberId` collected, who is a
 * current member of `memberSubteams`. Member and subteam filters: either matching is enough.
 */
export function endpointWants(
  e: Pick<Endpoint, 'enabled' | 'eventTypes' | 'members' | 'subteams'>,
  type: string,
  memberId: number,
  memberSubteams: number[],
): boolean {
  if (!e.enabled || !(e.eventTypes as string[]).includes(type)) return false;
  if (e.members === null && e.subteams === null) return true;
  if (e.members?.includes(memberId)) return true;
  return e.subteams?.some((s) => memberSubteams.includes(s)) ?? false;
}

/** The secrets that sign now: the current one, and the previous one within its grace period. */
export function signingSecrets(s: SigningSecrets, now: number): string[] {
  return s.previous !== null && s.previousUntil !== null && now < s.previousUntil
    ? [s.current, s.previous]
    : [s.current];
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'dropped';

/**
 * A page of an endpoint's deliveries (GET /api/pub/v2/webhooks/{endpointId}/deliveries), newest
 * first: `next` is the id to continue below, null when the page was the last.
 */
export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  next: number | null;
}

/** A delivery as `leadline webhooks deliveries` shows it, with its attempts, oldest first. */
export interface DeliveryRecord {
  id: number;
  eventId: string;
  endpointId: string;
  type: string;
  state: DeliveryState;
  createdAt: number;
  nextAttemptAt: number | null;
  finishedAt: number | null;
  attempts: AttemptResult[];
}
