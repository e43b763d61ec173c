import type { Logger } from 'pino';
import type { RetentionConfig } from '../config.js';
import { type RetentionPorts, runRetention } from './run.js';

/**
 * The retention schedule `leadline serve` runs (docs/privacy.md "Retention"): every policy once
 * at start and then every `intervalMs`, the receipts pruned with it. Every instance runs one; a
 * team another instance holds, or ran within half an interval, is skipped (run.ts's lease), so
 * instances behind one PostgreSQL never erase a team twice at once. `stop` ends the run in
 * progress after its batch and waits for it.
 */
export class RetentionSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ports: RetentionPorts,
    private readonly config: RetentionConfig,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.config.intervalMs === 0 || this.timer !== null || this.stopped) return;
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    this.running = this.runOnce().finally(() => {
      this.running = null;
      if (this.stopped) return;
      this.timer = setTimeout(() => this.tick(), this.config.intervalMs);
      this.timer.unref();
    });
  }

  private async runOnce(): Promise<void> {
    const now = this.now();
    try {
      const run = await runRetention(this.ports, {
        dryRun: false,
        now,
        by: { via: 'schedule' },
        receiptDays: this.config.receiptDays,
        staleBefore: now - this.config.intervalMs / 2,
        stopping: () => this.stopped,
      });
      const erased = run.teams.reduce((n, t) => n + t.erased, 0);
      if (erased > 0 || (run.receipts?.pruned ?? 0) > 0)
        this.logger.info(
          {
            erased,
            teams: run.teams.filter((t) => t.erased > 0).length,
            receiptsPruned: run.receipts?.pruned,
          },
          'retention: leads erased',
        );
    } catch (err) {
      this.logger.error({ err }, 'retention: the run failed; the next one tries again');
    }
  }
}
