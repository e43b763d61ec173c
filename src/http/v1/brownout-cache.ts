import type { Brownout } from '../../retirement/gates.js';

/**
 * The brownout windows as this instance knows them: read from the store at most every
 * `maxAgeMs` (one read shared by the requests waiting on it), so a window added with
 * `leadline v1 brownout add` reaches every instance within a second without a store round trip
 * per v1 call.
 */
export class BrownoutCache {
  private cached: readonly Brownout[] = [];
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<readonly Brownout[]> | null = null;

  constructor(
    private readonly read: () => Promise<Brownout[]>,
    private readonly maxAgeMs = 500,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The windows when read within `maxAgeMs`, else null (then `current` reads them): no wait for a fresh list. */
  fresh(): readonly Brownout[] | null {
    return this.clock() - this.readAt < this.maxAgeMs ? this.cached : null;
  }

  async current(): Promise<readonly Brownout[]> {
    if (this.clock() - this.readAt < this.maxAgeMs) return this.cached;
    this.reading ??= this.read().then(
      (list) => {
        this.cached = list;
        this.readAt = this.clock();
        this.reading = null;
        return list;
      },
      (err: unknown) => {
        this.reading = null;
        throw err;
      },
    );
    return this.reading;
  }
}
