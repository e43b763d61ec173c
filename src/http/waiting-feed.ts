import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FeedWatch } from '../leads/feed.port.js';
import type { Store } from '../store.js';
import { EVENT_STREAM, frame, requestGone, SseStream } from './sse.js';
import { StreamedAnswer } from './v2/handler.js';

/**
 * A feed that waits (docs/v2.md "Waiting for changes"), for any cursor-paged feed of a team:
 * `/leads/changes` today, the event log (`/events`) next. The feed gives a `read(after)` of one
 * page — items, each item's own position, and the position after the page (past what a filter
 * skipped, too) — and how a position becomes a cursor; this holds the request on the store's
 * feed signal (long-poll) or streams it as Server-Sent Events.
 */
export interface WaitingFeed<T> {
  teamId: number;
  /** Items per read: a full page means more may follow at once. */
  limit: number;
  read(after: string | null): Promise<FeedPage<T>>;
  /**
   * Everything `read(after)` and `cursor` depend on besides the team — the feed's name, the
   * caller's scope, filters, `after`, `limit` — as a string: waiters of one team with the same
   * key share one read (FeedSignal.shared) and the cursors and event text made from it.
   */
  key(after: string | null): string;
  /** The sealed cursor of a position (what the client sends back). */
  cursor(position: string): string;
  /** An item as an event: its `event:` name and its JSON `data`. */
  event(item: T): { event: string; data: unknown };
}

export interface FeedPage<T> {
  items: T[];
  positions: string[];
  next: string;
  /**
   * More may follow at once (read again, don't wait). Absent: a page of `limit` items. A feed
   * that drops items after reading (the event log) says so itself.
   */
  full?: boolean;
}

/** Whether a page may have more behind it at once. */
export const fullPage = <T>(page: FeedPage<T>, limit: number): boolean =>
  page.full ?? page.items.length === limit;

/** How long a stream sleeps on its watch before it checks it is still wanted. */
const STREAM_NAP_MS = 60_000;

/**
 * A read made while holding a watch of the team: shared with every waiter asking the same
 * (FeedSignal.shared) — one query for a thousand followers at one position, not a thousand.
 */
function sharedRead<T>(store: Store, feed: WaitingFeed<T>, after: string | null): Promise<FeedPage<T>> {
  return store.feed.shared(feed.teamId, feed.key(after), () => feed.read(after), nextOf);
}

/** Where a page ends: it moves when anything new is visible at the position read from. */
const nextOf = (page: FeedPage<unknown>): string => page.next;

/**
 * What every client given one (shared) page is sent alike, made once per page: the sealed
 * cursor of a position (sealing is an HKDF and an AES-GCM each) and each item's event frame.
 */
const cursors = new WeakMap<FeedPage<unknown>, Map<string, string>>();
const frames = new WeakMap<FeedPage<unknown>, string[]>();

/** The cursor of `position` (one of the page's positions, or its `next`), sealed once per page. */
export function cursorIn<T>(feed: WaitingFeed<T>, page: FeedPage<T>, position: string): string {
  let made = cursors.get(page);
  if (made === undefined) {
    made = new Map();
    cursors.set(page, made);
  }
  let cursor = made.get(position);
  if (cursor === undefined) {
    cursor = feed.cursor(position);
    made.set(position, cursor);
  }
  return cursor;
}

function frameOf<T>(feed: WaitingFeed<T>, page: FeedPage<T>, i: number): string {
  let made = frames.get(page);
  if (made === undefined) {
    made = [];
    frames.set(page, made);
  }
  let text = made[i];
  if (text === undefined) {
    const { event, data } = feed.event(page.items[i]!);
    text = frame({ id: cursorIn(feed, page, page.positions[i]!), event, data: JSON.stringify(data) });
    made[i] = text;
  }
  return text;
}

/**
 * Long-poll: the page after `after`; when it is empty, held until the feed signal says the
 * team's feed moved and a read finds something, or `waitSeconds` pass, or the client leaves or
 * the server closes (then the empty page). Watches before the first read: nothing stored
 * between the two is missed.
 */
export async function waitForPage<T>(
  store: Store,
  reply: FastifyReply,
  closing: AbortSignal,
  feed: WaitingFeed<T>,
  after: string | null,
  waitSeconds: number,
): Promise<FeedPage<T>> {
  if (waitSeconds === 0) return feed.read(after);
  const watch = await store.feed.watch(feed.teamId);
  try {
    const gone = requestGone(reply, closing);
    const deadline = Date.now() + waitSeconds * 1000;
    let page = await sharedRead(store, feed, after);
    while (page.items.length === 0) {
      // Nothing shown, but the read stopped at its limit: go on at once from where it stopped.
      if (fullPage(page, feed.limit)) after = page.next;
      else if (!(await watch.next(deadline - Date.now(), gone))) break;
      page = await sharedRead(store, feed, after);
    }
    return page;
  } finally {
    watch.close();
    // Let go by a shutdown: the connection must not outlive it as an idle keep-alive.
    if (closing.aborted) reply.header('connection', 'close');
  }
}

/**
 * The feed as Server-Sent Events from `after`: each item an event whose id is the cursor after
 * it; once caught up, a sleep on the feed signal until something new is stored. A `bookmark`
 * (only a cursor) whenever the feed's position moved past what was last sent without an item
 * to carry it — a stream that starts with nothing to send, a filter that let nothing through —
 * so the client's Last-Event-ID always advances. Heartbeats as sse.ts sends them. Ends when the
 * client goes or the server closes; a failed read ends it too (the client resumes).
 */
export async function streamFeed<T>(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { closing: AbortSignal; heartbeatMs: number },
  feed: WaitingFeed<T>,
  after: string | null,
): Promise<StreamedAnswer> {
  const gone = requestGone(reply, options.closing);
  const watch = await store.feed.watch(feed.teamId);
  // The first page is read before the 200: a refused resume point (an expired cursor's 410)
  // answers as a problem, not as a stream that ends at once.
  let first: FeedPage<T>;
  try {
    first = await sharedRead(store, feed, after);
  } catch (err) {
    watch.close();
    throw err;
  }
  const sse = new SseStream(options.heartbeatMs, gone);
  reply.header('x-accel-buffering', 'no'); // nginx: pass each event on as it comes
  // The stream holds the connection for its life; once it ends (the client left, or the server
  // closes) the connection goes too, rather than lingering as an idle keep-alive a closing
  // server would wait out.
  reply.header('connection', 'close');
  void pump(store, sse, watch, feed, after, first, gone).catch((err: unknown) => {
    request.log.warn({ err }, 'event stream ended by a failed read');
    sse.end();
  });
  return new StreamedAnswer(EVENT_STREAM, sse.body);
}

async function pump<T>(
  store: Store,
  sse: SseStream,
  watch: FeedWatch,
  feed: WaitingFeed<T>,
  from: string | null,
  first: FeedPage<T>,
  gone: AbortSignal,
): Promise<void> {
  let after = from;
  /** The position the client's Last-Event-ID stands for. */
  let told = from;
  /** The page read before the 200 (streamFeed), then null until the next read. */
  let page: FeedPage<T> | null = first;
  try {
    while (sse.open) {
      page ??= await sharedRead(store, feed, after);
      for (let i = 0; i < page.items.length; i++) {
        if (!sse.open) return;
        await sse.sendFrame(frameOf(feed, page, i));
        told = page.positions[i]!;
      }
      after = page.next;
      const more = fullPage(page, feed.limit);
      const last = page;
      page = null;
      if (more) continue;
      if (told !== after) {
        await sse.bookmark(cursorIn(feed, last, after));
        told = after;
      }
      while (sse.open && !(await watch.next(STREAM_NAP_MS, gone))) {}
    }
  } finally {
    watch.close();
    sse.end();
  }
}
