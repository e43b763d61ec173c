import type { Brownout } from './gates.js';
import type { UsageRow, UsageSink } from './usage.js';
import type { V1NoticeStore } from './v1-notices.port.js';

/**
 * What v1's retirement needs from a store: brownout windows and the usage ledger.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

export interface NewBrownout {
  startsAt: number;
  endsAt: number;
  /** null: every key. */
  keyIds: number[] | null;
  createdAt: number;
}

/** The data behind v1's retirement: brownout windows and the usage ledger. */
export interface RetirementStore extends UsageSink, V1NoticeStore {
  addBrownout(b: NewBrownout): Promise<Brownout>;
  /** Every window, past and future, by start. */
  brownouts(): Promise<Brownout[]>;
  removeBrownout(id: number): Promise<boolean>;
  /** Ledger rows of `sinceDay` (YYYY-MM-DD) and later; null: all. */
  usage(sinceDay: string | null): Promise<UsageRow[]>;
  /** The v1 rows of these keys, of `sinceDay` (YYYY-MM-DD) and later: what they called (by the ledger's key). */
  v1UsageOfKeys(keyIds: number[], sinceDay: string): Promise<UsageRow[]>;
}
