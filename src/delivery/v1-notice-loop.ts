import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { sendV1UsageNotices } from '../retirement/send-v1-usage.js';
import type { Store } from '../store.js';

/** How often an instance looks for a day to report: the notice leaves within this of the day's end (+ settling). */
export const V1_NOTICE_EVERY_MS = 10 * 60_000;
/** The least wait after midnight UTC before yesterday's ledger counts are taken as final. */
const SETTLE_MIN_MS = 5 * 60_000;

/**
 * The `v1.usage` notices `leadline serve` writes (docs/webhooks.md "v1.usage"): every
 * `V1_NOTICE_EVERY_MS`, yesterday's notices not yet written. Every instance runs one; the store's
 * claim lets one notice per team and day through. The delivery loop delivers them.
 */
export class V1NoticeLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly config: Pick<Config, 'v1' | 'publicUrl' | 'usageFlushMs'>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly everyMs = V1_NOTICE_EVERY_MS,
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look: writes what is due; a failure (store down) is logged and the next tick tries again. */
  tick(): Promise<void> {
    this.running ??= this.once().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async once(): Promise<void> {
    try {
      const result = await sendV1UsageNotices(this.store, {
        now: this.now(),
        times: this.config.v1,
        brownouts: await this.store.retirement.brownouts(),
        migrationGuide: `${this.config.publicUrl}/docs/v1-migration`,
        settleMs: Math.max(SETTLE_MIN_MS, 2 * this.config.usageFlushMs),
      });
      for (const s of result.sent)
        this.logger.info(
          { teamId: s.teamId, day: result.day, deliveries: s.deliveries },
          'v1.usage notice queued',
        );
    } catch (err) {
      this.logger.error({ err }, 'v1.usage notices: could not write them; the next look tries again');
    }
  }
}
