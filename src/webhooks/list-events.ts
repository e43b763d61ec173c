import { type ScopeDirectory, visibleScope } from '../directory/access.js';
import type { Caller } from '../directory/directory.js';
import { AppError } from '../shared/errors.js';
import { type LoggedEvent, type LoggedEventType, loggedEvent } from './webhook.js';
import type { WebhookStore } from './webhooks.port.js';

/**
 * A page of the event log in the caller's scope (docs/v2.md "Events"): a member sees the events
 * of the leads they may read (visibleScope, as the lead feed); the team-level events
 * (`webhook.test`, `v1.usage`: about the team's endpoints and keys) only a team admin sees.
 */
export interface EventsQuery {
  types: readonly LoggedEventType[] | null;
  /** A position this operation returned; null: from the oldest event kept. */
  after: string | null;
  limit: number;
}

export interface EventsPage {
  events: LoggedEvent[];
  /** Each event's position, in step with `events` (a stream's per-event resume point). */
  positions: string[];
  /** Where to go on from: after the last event looked at, shown or not. */
  next: string;
  /** The page was full: more may follow at once. */
  full: boolean;
}

/**
 * The caller's reader of the event log: the scope is worked out once (a waiting request reads
 * many times), each page from the store. `key` is everything a page depends on besides the team
 * and the position, for waiters that share reads (FeedSignal.shared).
 */
export async function eventReader(
  ports: { webhooks: Pick<WebhookStore, 'log'>; directory: ScopeDirectory },
  caller: Caller,
): Promise<{ key: string; read(q: EventsQuery): Promise<EventsPage> }> {
  const scope = await visibleScope(caller, ports.directory);
  const teamEvents = caller.role === 'admin';
  return {
    key: JSON.stringify([scope, teamEvents]),
    async read(q) {
      const page = await ports.webhooks.log({
        scope,
        teamEvents,
        types: q.types,
        after: q.after,
        limit: q.limit,
      });
      if (page.expired) throw cursorExpired();
      const events: LoggedEvent[] = [];
      const positions: string[] = [];
      for (const [i, stored] of page.events.entries()) {
        const event = loggedEvent(stored);
        if (event === null) continue;
        events.push(event);
        positions.push(page.positions[i]!);
      }
      return { events, positions, next: page.next, full: page.events.length === q.limit };
    },
  };
}

/** A cursor behind the log's horizon: never a silent gap. */
export function cursorExpired(): AppError {
  return new AppError(
    'cursor-expired',
    'cursor: events after it were pruned (the event log keeps LEADLINE_EVENT_RETENTION_DAYS). Resynchronise: read the current state from scratch (POST /api/pub/v2/leads/search or GET /api/pub/v2/leads/changes without a cursor), then follow GET /api/pub/v2/events from a fresh cursor.',
  );
}
