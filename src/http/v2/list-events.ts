import { fingerprint } from '../../leads/cursor.js';
import { type InvalidParam, invalidParams } from '../../shared/errors.js';
import { eventReader } from '../../webhooks/list-events.js';
import { LOGGED_EVENT_TYPES, type LoggedEvent, type LoggedEventType } from '../../webhooks/webhook.js';
import { cursorIn, fullPage, streamFeed, type WaitingFeed, waitForPage } from '../waiting-feed.js';
import { resumePoint, waitReason, waitSeconds } from './feed-params.js';
import type { V2Handler } from './handler.js';
import { DEFAULT_LIMIT } from './search-leads.js';

export const EVENTS_PATH = '/api/pub/v2/events';
const QUERY = new Set(['cursor', 'types', 'limit', 'wait']);

/**
 * GET /api/pub/v2/events (docs/v2.md "Events"): the event log in the caller's scope, in log order,
 * each event with the id its webhooks carry as `webhook-id`. Paged like /leads/changes:
 * `nextCursor` after a full page, `pollCursor` always. The cursor is bound to the `types` filter;
 * one behind the log's retention is a 410 `cursor-expired`.
 *
 * Waiting (docs/v2.md "Waiting for changes", waiting-feed.ts), as /leads/changes: `wait=<seconds>`
 * holds an empty page until the team's feed moves; `Accept: text/event-stream` streams each event
 * as an SSE event named by its type, resumed from `Last-Event-ID`. An expired resume point is a
 * 410 before any stream starts.
 */
export const listEventsHandler: V2Handler = async (ctx, request, reply) => {
  const { caller, store, cursors, config } = ctx;
  const q = eventsQuery(request.query as Record<string, unknown>, config.feed.maxWaitSeconds);
  const { types, limit } = q;
  const { stream, cursor, name } = resumePoint(request, q.cursor);
  const codec = await cursors();
  const print = fingerprint({ types: types === null ? null : [...types].sort() });
  const after =
    cursor === undefined ? null : (codec.decode(cursor, 'events', caller.teamId, print, name) as string);
  const log = await eventReader(store, caller);
  const feed: WaitingFeed<LoggedEvent> = {
    teamId: caller.teamId,
    limit,
    read: async (from) => {
      const page = await log.read({ types, after: from, limit });
      // `full` counts the events read, shown or not: a page the scope thinned may have more behind it.
      return { items: page.events, positions: page.positions, next: page.next, full: page.full };
    },
    key: (from) => JSON.stringify(['events', log.key, print, from, limit]),
    cursor: (position) => codec.encode('events', caller.teamId, print, position),
    event: (e) => ({ event: e.type, data: e }),
  };
  if (stream) {
    // A resume point behind the horizon answers 410: streamFeed reads before its 200.
    const options = { closing: ctx.closing, heartbeatMs: config.feed.heartbeatSeconds * 1000 };
    return streamFeed(store, request, reply, options, feed, after);
  }
  const wait = request.method === 'HEAD' ? 0 : q.wait;
  const page = await waitForPage(store, reply, ctx.closing, feed, after, wait);
  const next = cursorIn(feed, page, page.next);
  return { data: { events: page.items, nextCursor: fullPage(page, limit) ? next : null, pollCursor: next } };
};

/** The query string, checked: every bad parameter named in one 400. */
function eventsQuery(
  query: Record<string, unknown>,
  maxWait: number,
): {
  types: LoggedEventType[] | null;
  limit: number;
  cursor: string | undefined;
  wait: number;
} {
  const bad: InvalidParam[] = [];
  for (const name of Object.keys(query))
    if (!QUERY.has(name)) bad.push({ name, reason: 'not a parameter of this operation' });
  const text = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') bad.push({ name, reason: 'give it once, not empty' });
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const [cursor, typesText, limitText, waitText] = ['cursor', 'types', 'limit', 'wait'].map(text);
  let types: LoggedEventType[] | null = null;
  if (typesText !== undefined) {
    const names = typesText.split(',');
    const unknown = names.filter((n) => !(LOGGED_EVENT_TYPES as readonly string[]).includes(n));
    if (unknown.length > 0 || new Set(names).size !== names.length)
      bad.push({
        name: 'types',
        reason: `a comma list of distinct event types, each one of ${LOGGED_EVENT_TYPES.join(', ')}`,
      });
    else types = names as LoggedEventType[];
  }
  const limit =
    limitText === undefined ? DEFAULT_LIMIT : /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= 1 && limit <= 1000)) bad.push({ name: 'limit', reason: 'an integer from 1 to 1000' });
  const wait = waitText === undefined ? 0 : waitSeconds(waitText, maxWait);
  if (wait === null) bad.push({ name: 'wait', reason: waitReason(maxWait) });
  if (bad.length > 0) throw invalidParams(bad);
  return { types, limit, cursor, wait: wait ?? 0 };
}
