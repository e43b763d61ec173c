import type { Caller } from '../../directory/directory.js';
import type { Lead } from '../../leads/lead.js';
import type { EpochRange, RangeScope } from '../../leads/leads.port.js';
import type { Store } from '../../store.js';

/** What a v1 operation answers: one lead (or none), or a range to stream. */
export type V1Result =
  | { kind: 'last'; lead: Lead | null }
  | { kind: 'range'; scope: RangeScope; range: EpochRange };

export interface V1Context {
  caller: Caller;
  query: Record<string, unknown>;
  store: Store;
}

export interface V1Operation {
  /** Operation name: the last path segment, and the name the usage ledger counts under. */
  name: string;
  run(ctx: V1Context): Promise<V1Result>;
}
