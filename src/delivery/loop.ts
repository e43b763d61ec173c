// Longer than the ~250 lines most files keep to: the loop's scheduling (claims, team shares,
// leases, retention) is one state machine; its attempt is send.ts, its rules
// src/webhooks/delivery.ts.
import type { Logger } from 'pino';
import type { WebhookConfig } from '../config.js';
import type { Store } from '../store.js';
import {
  type AttemptOutcome,
  type AttemptResult,
  afterAttempt,
  CLAIM_LEASE_MS,
  type ClaimedDelivery,
  type FinishedAttempt,
  signingSecrets,
} from '../webhooks/delivery.js';
import { SecretSeal } from '../webhooks/secret.js';
import type { DisabledEndpoint } from '../webhooks/webhook.js';
import { Sender } from './send.js';

/** How often undeliverable deliveries past the retention are dropped. */
const EXPIRE_EVERY_MS = 60_000;
/** After the store failed, the loop waits this long before trying again. */
const STORE_BACKOFF_MS = 1_000;
/** Opened endpoint secrets kept, so a sealed secret is not decrypted on every attempt. */
const OPENED_SECRETS = 1_000;
/** A claimed delivery not started within this is left to its lease running out, never sent late. */
const START_WITHIN_MS = CLAIM_LEASE_MS / 2;

/**
 * The delivery loop `leadline serve` runs (docs/webhooks.md "Delivery"): dispatches outbox events to their
 * endpoints, claims due deliveries, attempts each (at most `concurrency` in flight) and records
 * the outcome. Every instance on PostgreSQL runs one: the store's claims never hand the same
 * delivery to two of them. Idle, it looks for work every `pollMs`.
 *
 * The store's cost is paid per batch, not per attempt, and its round trips never leave a slot
 * idle while there is work:
 * - up to `concurrency` deliveries are claimed ahead of the slots, so a finished attempt's slot
 *   takes the next one at once; a round claims more when that reserve is half used;
 * - finished attempts wait in memory and the next round records them together in one
 *   transaction (a round comes at the latest `pollMs` after an attempt finished);
 * - dispatching runs beside the rounds, one batch at a time, and wakes the loop when it made
 *   deliveries.
 * An attempt a crash leaves unrecorded, like one the store failed to record, and a delivery
 * claimed and not started, are attempted again when their lease runs out: at least once.
 *
 * One team cannot take the loop from the others (docs/reliability.md R20–R22): every attempt ends within its
 * deadline (send.ts); a team has at most `teamConcurrency` attempts in flight and as many
 * claimed ahead, and claims take each team's oldest due deliveries, so another team's backlog
 * never stands in front of them; a batch the store refuses is recorded one attempt at a time.
 */
export class DeliveryLoop {
  private running = false;
  private inFlight = 0;
  /** Per team: attempts in flight. */
  private readonly teamInFlight = new Map<number, number>();
  /** Per team: attempts in flight and deliveries claimed ahead (what the claim's share counts). */
  private readonly teamHeld = new Map<number, number>();
  private readonly attempts = new Set<Promise<void>>();
  /** Claimed and not started yet, oldest first, with when they were claimed. */
  private reserve: { d: ClaimedDelivery; claimedAt: number }[] = [];
  /** Whether the last claim got all it asked for: more may be due. */
  private moreDue = false;
  /** Attempts made and not yet recorded, in the order they finished. */
  private finished: FinishedAttempt[] = [];
  private wake: (() => void) | null = null;
  /** A reason to run a round came while one was running: the next sleep returns at once. */
  private nudged = false;
  private recordTimer: NodeJS.Timeout | null = null;
  private done: Promise<void> | null = null;
  private dispatching: Promise<void> | null = null;
  /** performance.now() of the last dispatch started. */
  private lastDispatch = -Infinity;
  private dispatchFull = false;
  private dispatchBackoffUntil = 0;
  private lastExpiry = 0;
  private readonly seal: SecretSeal;
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    private readonly sender = new Sender(config, config.concurrency),
    private readonly now: () => number = Date.now,
    /** Told of every attempt (metrics: src/server.ts). */
    private readonly observe: (outcome: AttemptOutcome['kind'], result: AttemptResult) => void = () => {},
    /** Told of every endpoint the loop disabled, once each (metrics: src/server.ts). */
    private readonly disabled: (d: DisabledEndpoint) => void = () => {},
  ) {
    this.seal = new SecretSeal(config.secretKey);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  /**
   * Stops claiming and starting attempts, lets those in flight finish, records them all, hands
   * back the deliveries claimed and not started (due again at once), then returns.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.done;
    await this.dispatching;
    await Promise.all(this.attempts);
    if (this.recordTimer !== null) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const unstarted = this.reserve.map((r) => r.d);
    this.reserve = [];
    this.teamHeld.clear();
    try {
      await this.record();
      await this.store.deliveries.release(unstarted, this.now());
    } catch (err) {
      this.logger.error({ err }, 'webhook delivery: could not record or hand back the last deliveries');
    }
    this.sender.close();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.round();
      } catch (err) {
        this.logger.error({ err }, 'webhook delivery: the store failed; trying again');
        await this.sleep(STORE_BACKOFF_MS);
        continue;
      }
      await this.sleep(this.config.pollMs);
    }
  }

  /** One round: records what finished and refills the reserve, side by side. */
  private async round(): Promise<void> {
    this.nudged = false;
    if (this.recordTimer !== null) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const now = this.now();
    this.dispatchIfDue(now);
    if (now - this.lastExpiry >= EXPIRE_EVERY_MS) {
      this.lastExpiry = now;
      const dropped = await this.store.deliveries.expire(
        now - this.config.retentionMs,
        now,
        now - this.config.eventRetentionMs,
      );
      if (dropped > 0)
        this.logger.warn({ dropped }, 'webhook deliveries dropped undelivered after the retention');
    }
    await Promise.all([this.record(), this.refill()]);
  }

  /**
   * Claims up to `concurrency` ahead of the slots, and starts what the free slots take. First each
   * team's share (`2 × teamConcurrency` held); then, when a team had more due than its share, the
   * idle capacity is lent out — but never the last `2 × teamConcurrency`, which stay for the
   * claims of teams that hold nothing yet.
   */
  private async refill(): Promise<void> {
    const want = 2 * this.config.concurrency - this.inFlight - this.reserve.length;
    if (want <= 0 || !this.running) return;
    const now = this.now();
    const share = 2 * this.config.teamConcurrency;
    const claimed = await this.store.deliveries.claim(want, now, { perTeam: share, held: this.teamHeld });
    this.take(claimed, now);
    const atShare = [...this.teamHeld.values()].some((held) => held >= share);
    const lend = Math.min(
      want - claimed.length,
      2 * this.config.concurrency - share - this.inFlight - this.reserve.length,
    );
    let lent: ClaimedDelivery[] = [];
    if (atShare && lend > 0 && this.running) {
      lent = await this.store.deliveries.claim(lend, now, {
        perTeam: 2 * this.config.concurrency,
        held: this.teamHeld,
      });
      this.take(lent, now);
    }
    this.moreDue = claimed.length === want || (lend > 0 && lent.length === lend);
    this.startAttempts();
  }

  private take(claimed: ClaimedDelivery[], now: number): void {
    for (const d of claimed) {
      this.reserve.push({ d, claimedAt: now });
      count(this.teamHeld, d.teamId, 1);
    }
  }

  /**
   * Starts what the free slots take, oldest claim first. A team past `teamConcurrency` in flight
   * starts more only while `teamConcurrency` slots would stay free for the others: idle slots are
   * used, and a team that stalls can never take the instance's last ones.
   */
  private startAttempts(): void {
    if (!this.running) return;
    const { concurrency, teamConcurrency } = this.config;
    const waiting: typeof this.reserve = [];
    for (const r of this.reserve) {
      const { d, claimedAt } = r;
      if (this.inFlight >= concurrency) {
        waiting.push(r);
      } else if (this.now() - claimedAt > START_WITHIN_MS) {
        count(this.teamHeld, d.teamId, -1);
        this.logger.warn({ delivery: d.id }, 'webhook delivery: claimed too long ago; left to its lease');
      } else if (
        (this.teamInFlight.get(d.teamId) ?? 0) >= teamConcurrency &&
        this.inFlight >= concurrency - teamConcurrency
      ) {
        waiting.push(r);
      } else {
        count(this.teamInFlight, d.teamId, 1);
        this.track(d.teamId, this.attempt(d));
      }
    }
    this.reserve = waiting;
  }

  /**
   * Starts a dispatch unless one runs: after the event loop's turn while the outbox has more, else every `pollMs`
   * (timed on the monotonic clock: `now` is the deliveries' clock, which tests move).
   */
  private dispatchIfDue(now: number, next = false): void {
    const t = performance.now();
    if (this.dispatching !== null || !this.running || t < this.dispatchBackoffUntil) return;
    // While the outbox has more, the batch after a full one is started a turn later (`next`),
    // and by nothing else: two batches in one turn would hold requests for both.
    if (this.dispatchFull !== next) return;
    if (!this.dispatchFull && t - this.lastDispatch < this.config.pollMs) return;
    this.lastDispatch = t;
    this.dispatching = this.store.deliveries
      .dispatch(this.store.deliveries.dispatchBatch, now)
      .then(
        (n) => {
          this.dispatchFull = n === this.store.deliveries.dispatchBatch;
          if (n > 0) this.nudge();
        },
        (err) => {
          this.dispatchFull = false;
          this.dispatchBackoffUntil = performance.now() + STORE_BACKOFF_MS;
          this.logger.error({ err }, 'webhook delivery: could not dispatch events; trying again');
        },
      )
      .finally(() => {
        this.dispatching = null;
        // The next batch after the event loop's turn, not in this promise chain: on SQLite each
        // batch is synchronous, and a backlog (an import of a million leads logs a million
        // events) dispatched batch after batch in one chain held every request until it was done.
        if (this.dispatchFull)
          setImmediate(() => {
            if (this.running) this.dispatchIfDue(this.now(), true);
            else this.dispatchFull = false;
          });
      });
  }

  /**
   * Records the finished attempts in one batch; when the store refuses the batch, one attempt at
   * a time, so one row it cannot take does not hold back the rest. An attempt left unrecorded is
   * made again after its lease (at most MAX_ATTEMPTS in all: the store claims none after that).
   */
  private async record(): Promise<void> {
    if (this.finished.length === 0) return;
    const batch = this.finished;
    this.finished = [];
    const disabled: DisabledEndpoint[] = [];
    try {
      disabled.push(...(await this.store.deliveries.recordAttempts(batch)));
    } catch (err) {
      if (batch.length === 1) {
        this.unrecorded(err, batch);
        return;
      }
      for (const a of batch) {
        try {
          disabled.push(...(await this.store.deliveries.recordAttempts([a])));
        } catch (one) {
          this.unrecorded(one, [a]);
        }
      }
    }
    // The store says which endpoints it disabled (an endpoint disabled already is not again).
    for (const d of disabled) {
      this.logger.warn({ endpoint: d.endpointId, reason: d.reason }, 'webhook endpoint disabled');
      this.disabled(d);
    }
  }

  private unrecorded(err: unknown, attempts: FinishedAttempt[]): void {
    this.logger.error(
      { err, deliveries: attempts.map((a) => a.delivery.id) },
      'webhook delivery: could not record attempts; they will be made again after their lease',
    );
  }

  private track(team: number, p: Promise<void>): void {
    this.inFlight++;
    this.attempts.add(p);
    p.finally(() => {
      this.inFlight--;
      count(this.teamInFlight, team, -1);
      count(this.teamHeld, team, -1);
      this.attempts.delete(p);
      this.startAttempts();
      if (this.inFlight === 0 || (this.moreDue && this.reserve.length * 2 <= this.config.concurrency))
        this.nudge();
      else this.recordTimer ??= setTimeout(() => this.nudge(), this.config.pollMs);
    });
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      const secrets = signingSecrets(d.secrets, this.now()).map((s) => this.open(s));
      result = await this.sender.send(d, secrets, this.now());
    } catch (err) {
      result = { at: this.now(), status: null, latencyMs: 0, answer: `not sent: ${(err as Error).message}` };
    }
    const outcome = afterAttempt(d, result, this.config.disableAfterMs);
    this.observe(outcome.kind, result);
    this.finished.push({ delivery: d, result, outcome });
  }

  /** The secret as the signer takes it, opened once per sealed value. */
  private open(stored: string): string {
    let plain = this.opened.get(stored);
    if (plain === undefined) {
      plain = this.seal.open(stored);
      if (this.opened.size >= OPENED_SECRETS) this.opened.clear();
      this.opened.set(stored, plain);
    }
    return plain;
  }

  /** Runs a round now: wakes the loop, or makes its next sleep return at once. */
  private nudge(): void {
    if (this.wake !== null) this.wake();
    else this.nudged = true;
  }

  private sleep(ms: number): Promise<void> {
    if (this.nudged && this.running) {
      this.nudged = false;
      // The next round after the event loop's turn, never in this promise chain: a round's store
      // steps are synchronous on SQLite, and rounds nudged back to back (a backlog dispatched a
      // batch at a time) would hold every request until they stopped.
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Adds `by` to a team's count, forgetting teams that reach zero. */
function count(counts: Map<number, number>, team: number, by: number): void {
  const n = (counts.get(team) ?? 0) + by;
  if (n > 0) counts.set(team, n);
  else counts.delete(team);
}
