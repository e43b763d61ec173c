import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openStore } from '../../src/open-store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load } from '../support/helpers.js';
import { type Block, SseReader } from '../support/sse-reader.js';
import { type Instance, serve } from '../support/waiting-instances.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, get, post, V2 } from './client.js';

/**
 * Issue 41 §2 on the event log (docs/v2.md "Events", "Waiting for changes"): `wait=` long-polls
 * and `Accept: text/event-stream` on GET /api/pub/v2/events, woken by a lead another instance
 * stores (a second store on the same SQLite file; a second store on the same PostgreSQL schema,
 * LISTEN/NOTIFY), over real HTTP.
 */
const EVENTS = '/api/pub/v2/events';
const TEAM = 821;
const OTHER_TEAM = 822;
const ADMIN = 8211;
const OUTSIDER = 8221;
/** Generous: a wait the test needs to end, never a latency claim. */
const LONG = 30;

interface LoggedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: { leadId?: string };
}

interface EventsPage {
  events: LoggedEvent[];
  nextCursor: string | null;
  pollCursor: string;
}

async function create(app: FastifyInstance, key: string, name: string): Promise<string> {
  const res = await post(app, V2, key, {
    leadSource: 'QR_CODE_SCAN',
    captureDatetime: new Date().toISOString(),
    systemFields: { fullName: name },
  });
  return (assertV2Ok(res, 201).data as { leadId: string }).leadId;
}

/** A 200 page of the log (assertV2Ok checks leads; these are events). */
function okPage(res: { statusCode: number; body: string }): EventsPage {
  assert.equal(res.statusCode, 200, res.body);
  return (JSON.parse(res.body) as { data: EventsPage }).data;
}

async function page(app: FastifyInstance, key: string, query = ''): Promise<EventsPage> {
  return okPage(await get(app, `${EVENTS}${query}`, key));
}

/** Every event after `cursor` (none: from the start), and where to go on from. */
async function drain(app: FastifyInstance, key: string, cursor?: string): Promise<EventsPage> {
  const events: LoggedEvent[] = [];
  let p = await page(app, key, cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`);
  for (;;) {
    events.push(...p.events);
    if (p.nextCursor === null) return { events, nextCursor: null, pollCursor: p.pollCursor };
    p = await page(app, key, `?cursor=${encodeURIComponent(p.nextCursor)}`);
  }
}

/** Where a poller caught up with the `lead.created` of every lead in `leadIds` resumes (PostgreSQL may lag). */
async function caughtUp(app: FastifyInstance, key: string, leadIds: string[]): Promise<string> {
  return eventually(async () => {
    const all = await drain(app, key);
    const created = all.events.filter((e) => e.type === 'lead.created').map((e) => e.data.leadId);
    for (const id of leadIds) assert.ok(created.includes(id), `${id} not yet in the log`);
    return all.pollCursor;
  });
}

class EventsReader extends SseReader {
  /** The next logged event (skipping heartbeats and bookmarks), checked against its SSE framing. */
  async logged(): Promise<{ id: string; event: LoggedEvent }> {
    for (;;) {
      const b = await this.next(LONG * 1000);
      if (b.event === undefined || b.event === 'bookmark') continue;
      const event = JSON.parse(b.data!) as LoggedEvent;
      assert.equal(b.event, event.type, 'the SSE event is named by the event type');
      return { id: b.id!, event };
    }
  }
}

async function openStream(
  base: string,
  key: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<{ res: Response; events: EventsReader; stop: AbortController }> {
  const stop = new AbortController();
  const res = await fetch(`${base}${EVENTS}${query}`, {
    headers: { ...auth(key), accept: 'text/event-stream', ...headers },
    signal: stop.signal,
  });
  assert.equal(res.status, 200, await (res.status === 200 ? Promise.resolve('') : res.text()));
  return { res, events: new EventsReader(res.body!), stop };
}

for (const engine of enginesUnderTest()) {
  describe(`v2 events that wait [${engine}]`, () => {
    let made: EngineStore;
    let a: Instance;
    let b: Instance;
    let key: string;
    let outsiderKey: string;

    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Event Waiters' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@events.test', role: 'admin', pid: 'e1' },
        {
          type: 'member',
          id: OUTSIDER,
          teamId: OTHER_TEAM,
          email: 'out@events.test',
          role: 'admin',
          pid: 'e2',
        },
      ]);
      key = await keyFor(made.store, ADMIN);
      outsiderKey = await keyFor(made.store, OUTSIDER);
      a = await serve(made.store);
      // A second instance on the same data: what it stores reaches `a` only through the feed signal.
      b = await serve(await openStore(made.location));
    });
    after(async () => {
      await a?.app.close();
      await b?.app.close();
      await b?.store.close();
      await made?.cleanup();
    });

    it('a long-poll answers as soon as another instance stores a lead', async () => {
      const first = await create(b.app, key, 'Before');
      const poll = await caughtUp(a.app, key, [first]);
      const answer = fetch(`${a.base}${EVENTS}?wait=${LONG}&cursor=${encodeURIComponent(poll)}`, {
        headers: auth(key),
      });
      await eventually(async () => assert.equal(a.store.feed.waiting(), 1), LONG * 1000);
      const lead = await create(b.app, key, 'Woken');
      const res = await answer;
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: EventsPage };
      assert.deepEqual(
        body.data.events.map((e) => [e.type, e.data.leadId]),
        [['lead.created', lead]],
      );
      assert.equal(body.data.nextCursor, null);
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0));
    });

    it('answers an empty page at the limit; another team’s lead does not end the wait', async () => {
      const poll = (await drain(a.app, outsiderKey)).pollCursor;
      const answer = get(a.app, `${EVENTS}?wait=2&cursor=${encodeURIComponent(poll)}`, outsiderKey);
      await eventually(async () => assert.equal(a.store.feed.waiting(), 1), LONG * 1000);
      await create(b.app, key, 'Not theirs');
      const data = okPage(await answer);
      assert.deepEqual(data.events, []);
      assert.equal(data.nextCursor, null);
      assert.equal(typeof data.pollCursor, 'string');
      assert.equal(a.store.feed.waiting(), 0);
    });

    it('refuses a wait that is not whole seconds within the limit (400), with the other bad parameters', async () => {
      for (const wait of ['-1', '31', 'x', '1.5', '', '99999999']) {
        const res = await get(a.app, `${EVENTS}?wait=${encodeURIComponent(wait)}`, key);
        assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['wait']);
      }
      const both = await get(a.app, `${EVENTS}?wait=31&limit=0`, key);
      assertInvalidParams(assertV2Problem(both, 400, 'invalid-parameters'), ['limit', 'wait']);
      okPage(await get(a.app, `${EVENTS}?wait=0`, key));
    });

    it('an event stream sends the log in order, each event named by its type, then each new one', async () => {
      const all = await eventually(async () => {
        const d = await drain(a.app, key);
        assert.ok(d.events.length >= 3, 'the leads made so far are in the log');
        return d.events;
      });
      // limit=1: every read is a full page, so the stream pages on its own before it waits.
      const { res, events, stop } = await openStream(a.base, key, {}, '?limit=1');
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const retry = Number((await events.next()).retry);
      // 2 to 5 s, drawn per stream (sse.ts): a restart's reconnections come back spread out.
      assert.ok(Number.isInteger(retry) && retry >= 2000 && retry < 5000, `retry: ${retry}`);
      const ids: string[] = [];
      for (const expected of all) {
        const got = await events.logged();
        assert.deepEqual(got.event, expected, 'the same item a page carries');
        ids.push(got.id);
      }
      assert.equal(new Set(ids).size, ids.length, 'each event its own id');
      const fresh = await create(b.app, key, 'Streamed');
      assert.deepEqual((await events.logged()).event.data.leadId, fresh);
      for (let beats = 0; beats < 2; ) {
        const beat = await events.next(LONG * 1000);
        if (beat.comment === 'heartbeat') beats++;
        else assert.equal(beat.event, 'bookmark', 'nothing but heartbeats and bookmarks');
      }
      stop.abort();
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('resumes from Last-Event-ID without missing or repeating an event', async () => {
      const first = await openStream(a.base, key);
      const seen: { id: string; event: LoggedEvent }[] = [];
      const one = await create(b.app, key, 'R1');
      for (;;) {
        const e = await first.events.logged();
        seen.push(e);
        if (e.event.data.leadId === one) break;
      }
      first.stop.abort();
      const two = await create(b.app, key, 'R2');
      const three = await create(b.app, key, 'R3');
      const resumed = await openStream(a.base, key, { 'last-event-id': seen.at(-1)!.id }, '?limit=1');
      assert.equal((await resumed.events.logged()).event.data.leadId, two);
      assert.equal((await resumed.events.logged()).event.data.leadId, three);
      const four = await create(b.app, key, 'R4');
      assert.equal((await resumed.events.logged()).event.data.leadId, four);
      resumed.stop.abort();
      assert.equal(new Set(seen.map((e) => e.event.id)).size, seen.length, 'no event twice');
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('a types-filtered stream advances by bookmarks past the events it may not see', async () => {
      const { events, stop } = await openStream(a.base, key, {}, '?types=lead.merged');
      // Caught up with nothing to send: a bookmark at once.
      let first: Block;
      do first = await events.next(LONG * 1000);
      while (first.event !== 'bookmark');
      assert.deepEqual(JSON.parse(first.data!), { cursor: first.id });
      // A lead.created moves the log: the filtered reader's position moves with a new bookmark.
      await create(b.app, key, 'Unseen');
      let moved: Block;
      do moved = await events.next(LONG * 1000);
      while (moved.event !== 'bookmark');
      assert.notEqual(moved.id, first.id);
      stop.abort();
      // The bookmark is a resume point of the same types; with other types it is a 400.
      const again = await openStream(a.base, key, { 'last-event-id': moved.id! }, '?types=lead.merged');
      again.stop.abort();
      const res = await fetch(`${a.base}${EVENTS}`, {
        headers: { ...auth(key), accept: 'text/event-stream', 'last-event-id': moved.id! },
      });
      assert.equal(res.status, 400);
      const problem = (await res.json()) as { invalid_params: { name: string }[] };
      assert.deepEqual(
        problem.invalid_params.map((p) => p.name),
        ['Last-Event-ID'],
      );
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('a cursor behind the pruned events is a 410 on a long-poll and before a stream starts', async () => {
      const old = (await page(a.app, key, '?limit=1')).nextCursor!;
      assert.ok(old !== null);
      while ((await made.store.deliveries.dispatch(1000, Date.now())) > 0);
      const now = Date.now() + 1;
      await made.store.deliveries.expire(0, now, now);
      const poll = await get(a.app, `${EVENTS}?wait=${LONG}&cursor=${encodeURIComponent(old)}`, key);
      assertV2Problem(poll, 410, 'cursor-expired');
      for (const [headers, query] of [
        [{ 'last-event-id': old }, ''],
        [{}, `?cursor=${encodeURIComponent(old)}`],
      ] as const) {
        const res = await fetch(`${a.base}${EVENTS}${query}`, {
          headers: { ...auth(key), accept: 'text/event-stream', ...headers },
        });
        assert.equal(res.status, 410);
        assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        assert.match(((await res.json()) as { type: string }).type, /cursor-expired$/);
      }
      assert.equal(a.store.feed.waiting(), 0);
    });
  });
}
