import type { FastifyReply, FastifyRequest } from 'fastify';
import { visibleScope } from '../../directory/access.js';
import type { CursorCodec } from '../../leads/cursor.js';
import type { FeedWatch } from '../../leads/feed.port.js';
import type { ChangesPage, LeadScope, LeadStore } from '../../leads/leads.port.js';
import { feedEntryToV2 } from '../../leads/v2-wire.js';
import { invalidParams } from '../../shared/errors.js';
import { EVENT_STREAM, lastEventId, requestGone, SseStream, wantsEventStream } from '../sse.js';
import { StreamedAnswer, type V2Context, type V2Handler } from './handler.js';
import { DEFAULT_LIMIT } from './search-leads.js';

/**
 * GET /api/pub/v2/leads/changes: every lead the caller may see, in the order the service stored
 * them. `nextCursor` is given after a full page (more may follow at once) and is null once a
 * page comes back short (caught up); `pollCursor` is always given and is where to resume later,
 * so a poller following the feed sees every lead stored after its last page — late uploads
 * included.
 *
 * Waiting (docs/v2.md "Waiting for changes"): with `wait=<seconds>` an empty page is held until
 * something new is stored in the caller's scope or the seconds pass; with `Accept:
 * text/event-stream` the feed is a stream of Server-Sent Events, each lead an event whose id
 * is the cursor after it, resumed from `Last-Event-ID`.
 */
export const leadChanges: V2Handler = async (ctx, request, reply) => {
  const { caller, store, cursors, config } = ctx;
  const query = request.query as Record<string, unknown>;
  const limit = parseLimit(query.limit);
  const stream = wantsEventStream(request);
  const wait = parseWait(query.wait, config.feed.maxWaitSeconds);
  const codec = await cursors();
  // The feed has no filters: its cursors are bound to the team alone.
  const resume = stream ? lastEventId(request) : undefined;
  const cursor = resume ?? single(query.cursor, 'cursor');
  const after =
    cursor === undefined
      ? null
      : (codec.decode(
          cursor,
          'changes',
          caller.teamId,
          PRINT,
          resume === undefined ? 'cursor' : 'Last-Event-ID',
        ) as string);
  const scope = await visibleScope(caller, store.directory);
  const feed = { leads: store.leads, scope, limit, codec, teamId: caller.teamId };
  if (stream) return streamChanges(ctx, request, reply, feed, after);

  let page: ChangesPage;
  if (wait === 0 || request.method === 'HEAD') page = await read(feed, after);
  else {
    // Watch first, then read: a lead stored between the two still wakes the wait.
    const watch = await store.feed.watch(caller.teamId);
    try {
      const gone = requestGone(reply, ctx.closing);
      const deadline = Date.now() + wait * 1000;
      page = await read(feed, after);
      while (page.leads.length === 0 && (await watch.next(deadline - Date.now(), gone)))
        page = await read(feed, after);
    } finally {
      watch.close();
    }
    // Let go by a shutdown: the connection must not outlive it as an idle keep-alive.
    if (ctx.closing.aborted) reply.header('connection', 'close');
  }
  const next = codec.encode('changes', caller.teamId, PRINT, page.next);
  // A full page may have more behind it: go on at once. A short page means caught up.
  const full = page.leads.length === limit;
  return { data: { leads: page.leads.map(feedEntryToV2), nextCursor: full ? next : null, pollCursor: next } };
};

const PRINT = 'changes';
/** How long a stream sleeps on its watch between wake-ups before it checks it is still wanted. */
const STREAM_NAP_MS = 60_000;

interface Feed {
  leads: LeadStore;
  scope: LeadScope;
  limit: number;
  codec: CursorCodec;
  teamId: number;
}

/**
 * The feed as Server-Sent Events: pages from `after` as events `lead` (id: the cursor after
 * that lead), then — once caught up — a sleep on the store's feed signal until something new
 * is stored. A stream that has sent nothing yet sends a `bookmark` when it catches up, so the
 * client holds a resume point. Ends when the client goes or the server closes; a failed read
 * ends it too (the client reconnects with its Last-Event-ID).
 */
async function streamChanges(
  ctx: V2Context,
  request: FastifyRequest,
  reply: FastifyReply,
  feed: Feed,
  from: string | null,
): Promise<StreamedAnswer> {
  const gone = requestGone(reply, ctx.closing);
  const watch = await ctx.store.feed.watch(feed.teamId);
  const sse = new SseStream(ctx.config.feed.heartbeatSeconds * 1000, gone);
  reply.header('x-accel-buffering', 'no'); // nginx: pass each event on as it comes
  // The stream holds the connection for its life; once it ends (the client left, or the server
  // closes) the connection goes too, rather than lingering as an idle keep-alive a closing
  // server would wait out.
  reply.header('connection', 'close');
  void pump(sse, watch, feed, from, gone).catch((err: unknown) => {
    request.log.warn({ err }, 'event stream ended by a failed read');
    sse.end();
  });
  return new StreamedAnswer(EVENT_STREAM, sse.body);
}

async function pump(
  sse: SseStream,
  watch: FeedWatch,
  feed: Feed,
  from: string | null,
  gone: AbortSignal,
): Promise<void> {
  let after = from;
  let sent = false;
  try {
    while (sse.open) {
      const page = await read(feed, after);
      for (const [i, lead] of page.leads.entries()) {
        if (!sse.open) return;
        const id = feed.codec.encode('changes', feed.teamId, PRINT, page.positions[i]);
        await sse.send({ id, event: 'lead', data: JSON.stringify(feedEntryToV2(lead)) });
        sent = true;
      }
      after = page.next;
      if (page.leads.length === feed.limit) continue;
      if (!sent) {
        await sse.bookmark(feed.codec.encode('changes', feed.teamId, PRINT, after));
        sent = true;
      }
      while (sse.open && !(await watch.next(STREAM_NAP_MS, gone))) {}
    }
  } finally {
    watch.close();
    sse.end();
  }
}

/**
 * Reads of one page begun in the same turn of the event loop (the waiters one wake-up released)
 * share one query: a thousand followers of a team at the same position cost one read. Only
 * within the turn — a read begun before a change must not answer a waiter woken by it.
 */
const sharing = new WeakMap<LeadStore, Map<string, Promise<ChangesPage>>>();

function read(feed: Feed, after: string | null): Promise<ChangesPage> {
  let reads = sharing.get(feed.leads);
  if (reads === undefined) {
    reads = new Map();
    sharing.set(feed.leads, reads);
  }
  const key = JSON.stringify([feed.scope, after, feed.limit]);
  let page = reads.get(key);
  if (page === undefined) {
    page = feed.leads.changes(feed.scope, after, feed.limit);
    reads.set(key, page);
    const shared = reads;
    setImmediate(() => shared.delete(key));
  }
  return page;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalidParams([{ name, reason: 'give it once, not empty' }]);
  return value;
}

function parseLimit(value: unknown): number {
  const text = single(value, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  const n = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) throw invalidParams([{ name: 'limit', reason: 'an integer from 1 to 1000' }]);
  return n;
}

/** `wait`: whole seconds from 0 (answer at once) to the configured maximum. */
export function parseWait(value: unknown, max: number): number {
  const text = single(value, 'wait');
  if (text === undefined) return 0;
  const n = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= max))
    throw invalidParams([{ name: 'wait', reason: `whole seconds from 0 to ${max}` }]);
  return n;
}
