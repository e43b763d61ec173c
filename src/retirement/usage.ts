/**
 * The usage ledger (docs/v1-reference.md C7, docs/v2.md): every API call counted per
 * key, version, operation, UTC day and status, with first and last time seen and the user
 * agent. Calls are added up in memory — no store round trip on the request path — and written
 * by `flush` on an interval and at shutdown, as increments, so every instance adds to the same
 * rows. A crash loses at most the calls since the last flush.
 */

export type Api = 'v1' | 'v2';

export interface UsageRow {
  keyId: number;
  api: Api;
  operation: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  status: number;
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** User agent of the last call counted in the row (at most 200 characters). */
  userAgent: string | null;
}

export interface UsageSink {
  /** Adds the rows' counts to the stored ones (first seen: earliest; last seen, agent: latest). */
  addUsage(rows: UsageRow[]): Promise<void>;
}

export const USER_AGENT_MAX = 200;

const DAY_MS = 86_400_000;
let lastDay = Number.NaN;
let lastDayText = '';

/** The UTC day of `ms`; the last one is remembered, as every call of a day asks for the same. */
export function utcDay(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 10);
    lastDay = day;
  }
  return lastDayText;
}

export class UsageLedger {
  private pending = new Map<string, UsageRow>();
  /**
   * The pending rows of one UTC day by api, key, operation and status: a busy key's count finds
   * its row through four look-ups of values already made, rather than building and hashing the
   * row's id on every call. Emptied when the day changes and when the rows go out (`flush`).
   */
  private index = new Map<Api, Map<number, Map<string, Map<number, UsageRow>>>>();
  private indexDay = '';

  constructor(private readonly sink: UsageSink) {}

  count(
    keyId: number,
    api: Api,
    operation: string,
    status: number,
    at: number,
    userAgent: string | null,
  ): void {
    const day = utcDay(at);
    if (day !== this.indexDay) {
      this.index = new Map();
      this.indexDay = day;
    }
    const byStatus = this.rowsOf(api, keyId, operation);
    const agent =
      userAgent === null || userAgent.length <= USER_AGENT_MAX
        ? userAgent
        : userAgent.slice(0, USER_AGENT_MAX);
    const row = byStatus.get(status);
    if (row === undefined) byStatus.set(status, this.add(keyId, api, operation, day, status, at, agent));
    else add(row, at, agent);
  }

  /** The index's rows of a key's operation on the index's day, by status. */
  private rowsOf(api: Api, keyId: number, operation: string): Map<number, UsageRow> {
    let byKey = this.index.get(api);
    if (byKey === undefined) {
      byKey = new Map();
      this.index.set(api, byKey);
    }
    let byOperation = byKey.get(keyId);
    if (byOperation === undefined) {
      byOperation = new Map();
      byKey.set(keyId, byOperation);
    }
    let byStatus = byOperation.get(operation);
    if (byStatus === undefined) {
      byStatus = new Map();
      byOperation.set(operation, byStatus);
    }
    return byStatus;
  }

  /** Counts a call under the row's id (a row the index does not hold yet): that row, made when new. */
  private add(
    keyId: number,
    api: Api,
    operation: string,
    day: string,
    status: number,
    at: number,
    agent: string | null,
  ): UsageRow {
    const id = `${keyId}\u0000${api}\u0000${operation}\u0000${day}\u0000${status}`;
    let row = this.pending.get(id);
    if (row === undefined) {
      row = { keyId, api, operation, day, status, count: 1, firstSeen: at, lastSeen: at, userAgent: agent };
      this.pending.set(id, row);
    } else add(row, at, agent);
    return row;
  }

  /** Calls counted and not yet written. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Writes what was counted. On failure (store down) the counts go back into the ledger, merged
   * with those counted meanwhile, and the next flush tries again: nothing is lost but a crash.
   */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.index = new Map();
    try {
      await this.sink.addUsage([...batch.values()]);
    } catch (err) {
      for (const [id, row] of batch) {
        const now = this.pending.get(id);
        if (now === undefined) this.pending.set(id, row);
        else {
          now.count += row.count;
          now.firstSeen = Math.min(now.firstSeen, row.firstSeen);
          if (row.lastSeen > now.lastSeen) {
            now.lastSeen = row.lastSeen;
            now.userAgent = row.userAgent;
          }
        }
      }
      throw err;
    }
  }
}

/** One more call in `row`: first seen the earliest, last seen (and its agent) the latest. */
function add(row: UsageRow, at: number, agent: string | null): void {
  row.count++;
  if (at < row.firstSeen) row.firstSeen = at;
  if (at >= row.lastSeen) {
    row.lastSeen = at;
    row.userAgent = agent;
  }
}
