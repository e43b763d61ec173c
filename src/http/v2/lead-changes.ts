import { visibleScope } from '../../directory/access.js';
import type { StoredLead } from '../../leads/lead.js';
import { feedEntryToV2 } from '../../leads/v2-wire.js';
import { cursorIn, streamFeed, type WaitingFeed, waitForPage } from '../waiting-feed.js';
import { parseLimit, parseWait, resumePoint, single } from './feed-params.js';
import type { V2Handler } from './handler.js';

/**
 * GET /api/pub/v2/leads/changes: every lead the caller may see, in the order the service stored
 * them. `nextCursor` is given after a full page (more may follow at once) and is null once a
 * page comes back short (caught up); `pollCursor` is always given and is where to resume later,
 * so a poller following the feed sees every lead stored after its last page — late uploads
 * included.
 *
 * Waiting (docs/v2.md "Waiting for changes", waiting-feed.ts): with `wait=<seconds>` an empty
 * page is held until something new is stored in the caller's scope or the seconds pass; with
 * `Accept: text/event-stream` the feed is a stream of Server-Sent Events, each lead an event
 * `lead` whose id is the cursor after it, resumed from `Last-Event-ID`.
 */
export const leadChanges: V2Handler = async (ctx, request, reply) => {
  const { caller, store, cursors, config } = ctx;
  const query = request.query as Record<string, unknown>;
  const limit = parseLimit(query.limit);
  const wait = parseWait(query.wait, config.feed.maxWaitSeconds);
  const codec = await cursors();
  // The feed has no filters: its cursors are bound to the team alone.
  const { stream, cursor, name } = resumePoint(request, single(query.cursor, 'cursor'));
  const after =
    cursor === undefined ? null : (codec.decode(cursor, 'changes', caller.teamId, PRINT, name) as string);
  const scope = await visibleScope(caller, store.directory);
  const feed: WaitingFeed<StoredLead> = {
    teamId: caller.teamId,
    limit,
    read: async (from) => {
      const page = await store.leads.changes(scope, from, limit);
      return { items: page.leads, positions: page.positions, next: page.next };
    },
    key: (from) => JSON.stringify([PRINT, scope, from, limit]),
    cursor: (position) => codec.encode('changes', caller.teamId, PRINT, position),
    event: (lead) => ({ event: 'lead', data: feedEntryToV2(lead) }),
  };
  if (stream) {
    const options = { closing: ctx.closing, heartbeatMs: config.feed.heartbeatSeconds * 1000 };
    return streamFeed(store, request, reply, options, feed, after);
  }
  const page = await waitForPage(
    store,
    reply,
    ctx.closing,
    feed,
    after,
    request.method === 'HEAD' ? 0 : wait,
  );
  const next = cursorIn(feed, page, page.next);
  // A full page may have more behind it: go on at once. A short page means caught up.
  const full = page.items.length === limit;
  return { data: { leads: page.items.map(feedEntryToV2), nextCursor: full ? next : null, pollCursor: next } };
};

const PRINT = 'changes';
