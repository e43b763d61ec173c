import { fingerprint } from '../../leads/cursor.js';
import { type InvalidParam, invalidParams } from '../../shared/errors.js';
import { listEvents } from '../../webhooks/list-events.js';
import { LOGGED_EVENT_TYPES, type LoggedEventType } from '../../webhooks/webhook.js';
import type { V2Handler } from './handler.js';
import { DEFAULT_LIMIT } from './search-leads.js';

export const EVENTS_PATH = '/api/pub/v2/events';
const QUERY = new Set(['cursor', 'types', 'limit']);

/**
 * GET /api/pub/v2/events (docs/v2.md "Events"): the event log in the caller's scope, in log order,
 * each event with the id its webhooks carry as `webhook-id`. Paged like /leads/changes:
 * `nextCursor` after a full page, `pollCursor` always. The cursor is bound to the `types` filter;
 * one behind the log's retention is a 410 `cursor-expired`.
 */
export const listEventsHandler: V2Handler = async ({ caller, store, cursors }, request) => {
  const { types, limit, cursor } = eventsQuery(request.query as Record<string, unknown>);
  const codec = await cursors();
  const print = fingerprint({ types: types === null ? null : [...types].sort() });
  const after =
    cursor === undefined ? null : (codec.decode(cursor, 'events', caller.teamId, print) as string);
  const page = await listEvents(store, caller, { types, after, limit });
  const next = codec.encode('events', caller.teamId, print, page.next);
  return { data: { events: page.events, nextCursor: page.full ? next : null, pollCursor: next } };
};

/** The query string, checked: every bad parameter named in one 400. */
function eventsQuery(query: Record<string, unknown>): {
  types: LoggedEventType[] | null;
  limit: number;
  cursor: string | undefined;
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
  const [cursor, typesText, limitText] = ['cursor', 'types', 'limit'].map(text);
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
  if (bad.length > 0) throw invalidParams(bad);
  return { types, limit, cursor };
}
