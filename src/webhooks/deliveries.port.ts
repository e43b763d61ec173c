import type {
  AttemptOutcome,
  AttemptResult,
  ClaimedDelivery,
  DeliveryPage,
  DeliveryRecord,
  DeliveryState,
  FinishedAttempt,
  TeamShare,
} from './delivery.js';
import type { DisabledEndpoint, EndpointOwner } from './webhook.js';

/**
 * What webhook delivery needs from a store: the outbox, claimed, attempted and recorded.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/** Deliveries of outbox events to endpoints, and their attempts (domain/webhook-delivery.ts). */
export interface DeliveryStore {
  /**
   * How many events the delivery loop asks `dispatch` for at a time: on SQLite a dispatch is
   * synchronous on the serving thread, so its batch is small enough to hold requests for well
   * under a millisecond; on PostgreSQL it is a round trip, and a larger batch makes fewer.
   */
  readonly dispatchBatch: number;
  /**
   * Turns up to `limit` waiting outbox events into one delivery per endpoint that takes each,
   * its body rendered once; returns how many events it took. Instances never take the same event.
   */
  dispatch(limit: number, now: number): Promise<number>;
  /**
   * Leases up to `limit` due deliveries of enabled endpoints to the caller until `now` +
   * CLAIM_LEASE_MS, each counting one attempt; no two callers get the same delivery. Shared
   * between teams by `share` (without it, each team may take up to `limit`); a delivery that has
   * had its MAX_ATTEMPTS is never claimed again (`expire` ends it).
   */
  claim(limit: number, now: number, share?: TeamShare): Promise<ClaimedDelivery[]>;
  /**
   * Records attempts, in the order they finished, in one transaction: every attempt's row, each
   * delivery's next step (not when the delivery was claimed again or replayed since: its attempt
   * count moved on, and that claim decides), and the endpoints' health. An endpoint the batch
   * disables (it was enabled) gets a `webhook.endpoint.disabled` delivery to each other enabled
   * endpoint of its team that takes that type, in the same transaction; those are returned.
   */
  recordAttempts(batch: readonly FinishedAttempt[]): Promise<DisabledEndpoint[]>;
  /** One attempt recorded: `recordAttempts` with a batch of one (kept for callers of the earlier form). */
  record(delivery: ClaimedDelivery, result: AttemptResult, outcome: AttemptOutcome): Promise<void>;
  /**
   * Hands back claimed deliveries that were not attempted (the claimer stops): due at `now`,
   * their claim's attempt uncounted. One claimed again or replayed since is left as it is.
   */
  release(deliveries: readonly ClaimedDelivery[], now: number): Promise<void>;
  /** The endpoint's deliveries, newest first (null when the owner has no such endpoint). */
  deliveries(owner: EndpointOwner, endpointId: string, limit: number): Promise<DeliveryRecord[] | null>;
  /**
   * A page of the endpoint's deliveries, newest first, below the delivery id `before` (null: from
   * the newest), only those in `state` when given; null when the owner has no such endpoint.
   */
  deliveryPage(
    owner: EndpointOwner,
    endpointId: string,
    query: { state: DeliveryState | null; before: number | null; limit: number },
  ): Promise<DeliveryPage | null>;
  /** Sends a delivery again now, with the same webhook-id; false when the owner has no such delivery (or it was dropped). */
  replay(owner: EndpointOwner, deliveryId: number, now: number): Promise<boolean>;
  /**
   * Sends again every failed delivery of the endpoint created since `since`; returns how many.
   * Each becomes pending, due at `now`, its attempts counted afresh; one already pending again
   * is not taken twice (the change is one statement conditioned on `failed`).
   */
  replayFailed(owner: EndpointOwner, endpointId: string, since: number, now: number): Promise<number>;
  /** Queues a `webhook.test` event to the endpoint; its webhook-id, or null when no such endpoint. */
  sendTest(owner: EndpointOwner, endpointId: string, now: number): Promise<string | null>;
  /**
   * Drops the bodies and attempts of deliveries undelivered since before `before` (their rows
   * stay, state `dropped`: the record); prunes the event log of the events made before
   * `eventsBefore` (default `before`; LEADLINE_EVENT_RETENTION_DAYS) that are dispatched and no
   * pending delivery needs, raising each team's horizon to the highest position pruned (a cursor
   * behind it is answered 410); ends as `failed` the deliveries whose last attempt's lease ran
   * out unrecorded; returns how many deliveries were dropped.
   */
  expire(before: number, now: number, eventsBefore?: number): Promise<number>;
  /** What waits to be delivered (metrics): events not yet dispatched, deliveries not yet done. */
  backlog(): Promise<WebhookBacklog>;
}

export interface WebhookBacklog {
  /** Outbox events not yet turned into deliveries. */
  undispatched: number;
  /** Deliveries waiting for a successful attempt (retries included). */
  pending: number;
  /** When the oldest of those was made (ms since the epoch); null when none waits. */
  oldestAt: number | null;
}
