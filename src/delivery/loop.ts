import type { Logger } from 'pino';
import type { WebhookConfig } from '../config.js';
import type { Store } from '../domain/store.js';
import {
  type AttemptOutcome,
  type AttemptResult,
  afterAttempt,
  type ClaimedDelivery,
  signingSecrets,
} from '../domain/webhook-delivery.js';
import { SecretSeal } from '../domain/webhook-secret.js';
import { Sender } from './send.js';

/** Outbox events turned into deliveries per round. */
const DISPATCH_BATCH = 500;
/** How often undeliverable deliveries past the retention are dropped. */
const EXPIRE_EVERY_MS = 60_000;
/** After the store failed, the loop waits this long before trying again. */
const STORE_BACKOFF_MS = 1_000;

/**
 * The delivery loop `leadline serve` runs (issue 13 §4): dispatches outbox events to their
 * endpoints, claims due deliveries (at most `concurrency` in flight), attempts each and records
 * the outcome. Every instance on PostgreSQL runs one: the store's claims never hand the same
 * delivery to two of them. Idle, it looks for work every `pollMs`.
 */
export class DeliveryLoop {
  private running = false;
  private inFlight = 0;
  private readonly attempts = new Set<Promise<void>>();
  private wake: (() => void) | null = null;
  private done: Promise<void> | null = null;
  private lastExpiry = 0;
  private readonly seal: SecretSeal;

  constructor(
    private readonly store: Store,
    private readonly config: WebhookConfig,
    private readonly logger: Logger,
    private readonly sender = new Sender(config, config.concurrency),
    private readonly now: () => number = Date.now,
    /** Told of every attempt (metrics: src/server.ts). */
    private readonly observe: (outcome: AttemptOutcome['kind'], result: AttemptResult) => void = () => {},
  ) {
    this.seal = new SecretSeal(config.secretKey);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  /** Stops claiming, lets the attempts in flight finish and record, then returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.done;
    await Promise.all(this.attempts);
    this.sender.close();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        busy = await this.round();
      } catch (err) {
        this.logger.error({ err }, 'webhook delivery: the store failed; trying again');
        await this.sleep(STORE_BACKOFF_MS);
        continue;
      }
      if (!busy) await this.sleep(this.config.pollMs);
    }
  }

  /** One round; true when there may be more work right away. */
  private async round(): Promise<boolean> {
    const now = this.now();
    if (now - this.lastExpiry >= EXPIRE_EVERY_MS) {
      this.lastExpiry = now;
      const dropped = await this.store.deliveries.expire(now - this.config.retentionMs, now);
      if (dropped > 0)
        this.logger.warn({ dropped }, 'webhook deliveries dropped undelivered after the retention');
    }
    const dispatched = await this.store.deliveries.dispatch(DISPATCH_BATCH, now);
    const free = this.config.concurrency - this.inFlight;
    if (free <= 0) return false;
    const claimed = await this.store.deliveries.claim(free, this.now());
    for (const d of claimed) this.track(this.attempt(d));
    return dispatched === DISPATCH_BATCH || claimed.length === free;
  }

  private track(p: Promise<void>): void {
    this.inFlight++;
    this.attempts.add(p);
    p.finally(() => {
      this.inFlight--;
      this.attempts.delete(p);
      this.wake?.();
    });
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      const secrets = signingSecrets(d.secrets, this.now()).map((s) => this.seal.open(s));
      result = await this.sender.send(d, secrets, this.now());
    } catch (err) {
      result = { at: this.now(), status: null, latencyMs: 0, answer: `not sent: ${(err as Error).message}` };
    }
    const outcome = afterAttempt(d, result, this.config.disableAfterMs);
    this.observe(outcome.kind, result);
    try {
      await this.store.deliveries.record(d, result, outcome);
    } catch (err) {
      // Unrecorded, the lease runs out and the delivery is attempted again: at least once.
      this.logger.error({ err, delivery: d.id }, 'webhook delivery: could not record an attempt');
      return;
    }
    if (outcome.kind === 'failed-and-disable') {
      this.logger.warn({ endpoint: d.endpointId, reason: outcome.reason }, 'webhook endpoint disabled');
    }
  }

  private sleep(ms: number): Promise<void> {
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
