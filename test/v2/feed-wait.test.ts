import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Compile } from 'typebox/compile';
import { openStore } from '../../src/open-store.js';
import { V2Lead } from '../../src/schemas/v2.js';
import { observeStore } from '../../src/storage/observed-store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load } from '../support/helpers.js';
import { type Block, SseReader } from '../support/sse-reader.js';
import { type Instance, serve } from '../support/waiting-instances.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, get, post, V2 } from './client.js';

/**
 * Issue 41 §2, a feed that waits (docs/v2.md "Waiting for changes"): `wait=` long-polls and
 * `Accept: text/event-stream` on /leads/changes, woken by a lead another instance stores — a
 * second store on the same SQLite file (another connection), a second store and app on the same
 * PostgreSQL schema (LISTEN/NOTIFY) — over real HTTP, so disconnects and streams are real.
 */
const checkLead = Compile(V2Lead);
const TEAM = 811;
const OTHER_TEAM = 812;
const ADMIN = 8111;
const OUTSIDER = 8121;
/** Generous: a wait the test needs to end, never a latency claim (bench/feed-wait.ts measures those). */
const LONG = 30;

interface ChangesPage {
  leads: V2Lead[];
  nextCursor: string | null;
  pollCursor: string;
}

async function create(app: FastifyInstance, key: string, name: string): Promise<V2Lead> {
  const res = await post(app, V2, key, {
    leadSource: 'QR_CODE_SCAN',
    captureDatetime: new Date().toISOString(),
    systemFields: { fullName: name },
  });
  return assertV2Ok(res, 201).data as V2Lead;
}

async function page(app: FastifyInstance, key: string, cursor?: string): Promise<ChangesPage> {
  const q = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
  return assertV2Ok(await get(app, `${V2}/changes${q}`, key)).data as ChangesPage;
}

/** Where a poller caught up with every lead named in `names` resumes (the feed may lag on PostgreSQL). */
async function caughtUp(app: FastifyInstance, key: string, names: string[]): Promise<string> {
  return eventually(async () => {
    const seen: string[] = [];
    let p = await page(app, key);
    for (;;) {
      seen.push(...p.leads.map((l) => l.systemFields.fullName ?? ''));
      if (p.nextCursor === null) break;
      p = await page(app, key, p.nextCursor);
    }
    for (const n of names) assert.ok(seen.includes(n), `${n} not yet in the feed`);
    return p.pollCursor;
  });
}

/** The feed's event stream: blocks (test/support/sse-reader.ts), and its `lead` events checked. */
class EventReader extends SseReader {
  /** The next `lead` event, skipping heartbeats and bookmarks. */
  async lead(): Promise<{ id: string; lead: V2Lead }> {
    for (;;) {
      const b = await this.next();
      if (b.event !== 'lead') continue;
      const lead = JSON.parse(b.data!) as V2Lead;
      // The same lead as a page holds (the OpenAPI document's V2Lead).
      assert.ok(checkLead.Check(lead), `v2 lead shape: ${JSON.stringify([...checkLead.Errors(lead)][0])}`);
      return { id: b.id!, lead };
    }
  }
}

async function openStream(
  base: string,
  key: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<{ res: Response; events: EventReader; stop: AbortController }> {
  const stop = new AbortController();
  const res = await fetch(`${base}${V2}/changes${query}`, {
    headers: { ...auth(key), accept: 'text/event-stream', ...headers },
    signal: stop.signal,
  });
  assert.equal(res.status, 200, await (res.status === 200 ? Promise.resolve('') : res.text()));
  return { res, events: new EventReader(res.body!), stop };
}

for (const engine of enginesUnderTest()) {
  describe(`v2 lead changes that wait [${engine}]`, () => {
    let made: EngineStore;
    /** The instance requests wait on. */
    let a: Instance;
    /** Another instance on the same store: where leads are created. */
    let b: Instance;
    let key: string;
    let outsiderKey: string;
    let writerKey: string;

    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Waiting Co' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@wait.test', role: 'admin', pid: 'w1' },
        {
          type: 'member',
          id: OUTSIDER,
          teamId: OTHER_TEAM,
          email: 'out@wait.test',
          role: 'admin',
          pid: 'w2',
        },
      ]);
      key = await keyFor(made.store, ADMIN);
      writerKey = await keyFor(made.store, ADMIN);
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
      await create(b.app, writerKey, 'Before');
      const poll = await caughtUp(a.app, key, ['Before']);
      const answer = fetch(`${a.base}${V2}/changes?wait=${LONG}&cursor=${encodeURIComponent(poll)}`, {
        headers: auth(key),
      });
      await eventually(async () => assert.equal(a.store.feed.waiting(), 1), LONG * 1000);
      const lead = await create(b.app, writerKey, 'Woken');
      const res = await answer;
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: ChangesPage };
      assert.deepEqual(
        body.data.leads.map((l) => l.leadId),
        [lead.leadId],
      );
      assert.equal(body.data.nextCursor, null);
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0));
    });

    it('answers an empty page at the limit; another team’s lead does not end the wait', async () => {
      const poll = await caughtUp(a.app, outsiderKey, []);
      const answer = get(a.app, `${V2}/changes?wait=2&cursor=${encodeURIComponent(poll)}`, outsiderKey);
      await eventually(async () => assert.equal(a.store.feed.waiting(), 1), LONG * 1000);
      await create(b.app, writerKey, 'Not theirs');
      const data = assertV2Ok(await answer).data as ChangesPage;
      assert.deepEqual(data.leads, []);
      assert.equal(data.nextCursor, null);
      assert.equal(typeof data.pollCursor, 'string');
      assert.equal(a.store.feed.waiting(), 0);
    });

    it('refuses a wait that is not whole seconds within the limit (400)', async () => {
      for (const wait of ['-1', '31', 'x', '1.5', '', '99999999']) {
        const res = await get(a.app, `${V2}/changes?wait=${encodeURIComponent(wait)}`, key);
        assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['wait']);
      }
      const res = await get(a.app, `${V2}/changes?wait=0`, key);
      assertV2Ok(res);
    });

    it('a client that goes away frees its waiter', async () => {
      const poll = await caughtUp(a.app, key, ['Woken']);
      const stop = new AbortController();
      const answer = fetch(`${a.base}${V2}/changes?wait=${LONG}&cursor=${encodeURIComponent(poll)}`, {
        headers: auth(key),
        signal: stop.signal,
      }).catch((err: unknown) => err);
      await eventually(async () => assert.equal(a.store.feed.waiting(), 1), LONG * 1000);
      stop.abort();
      assert.equal(((await answer) as Error).name, 'AbortError');
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('an event stream sends the feed in order, then each new lead, with heartbeats', async () => {
      const all = await caughtUp(a.app, key, ['Before', 'Woken', 'Not theirs']).then(async () => {
        const leads: V2Lead[] = [];
        let p = await page(a.app, key);
        for (;;) {
          leads.push(...p.leads);
          if (p.nextCursor === null) return leads;
          p = await page(a.app, key, p.nextCursor);
        }
      });
      // limit=1: every read is a full page, so the stream pages on its own before it waits.
      const { res, events, stop } = await openStream(a.base, key, {}, '?limit=1');
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const retry = Number((await events.next()).retry);
      // 2 to 5 s, drawn per stream (sse.ts): a restart's reconnections come back spread out.
      assert.ok(Number.isInteger(retry) && retry >= 2000 && retry < 5000, `retry: ${retry}`);
      const ids: string[] = [];
      for (const expected of all) {
        const got = await events.lead();
        assert.equal(got.lead.leadId, expected.leadId);
        ids.push(got.id);
      }
      assert.equal(new Set(ids).size, ids.length, 'each event its own id');
      const fresh = await create(b.app, writerKey, 'Streamed');
      assert.equal((await events.lead()).lead.leadId, fresh.leadId);
      // Nothing more is stored: the stream stays open on heartbeats, past the request deadline.
      for (let beats = 0; beats < 3; ) {
        const beat = await events.next();
        assert.equal(beat.event, undefined, 'nothing but heartbeats');
        if (beat.comment === 'heartbeat') beats++;
      }
      assert.equal(a.store.feed.waiting(), 1);
      stop.abort();
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('resumes from Last-Event-ID without missing or repeating a lead', async () => {
      const first = await openStream(a.base, key);
      const seen: { id: string; lead: V2Lead }[] = [];
      const one = await create(b.app, writerKey, 'R1');
      for (;;) {
        const e = await first.events.lead();
        seen.push(e);
        if (e.lead.leadId === one.leadId) break;
      }
      first.stop.abort();
      // Stored while no stream is open: the resumed stream must bring them, after R1 only.
      const two = await create(b.app, writerKey, 'R2');
      const three = await create(b.app, writerKey, 'R3');
      const resumed = await openStream(a.base, key, { 'last-event-id': seen.at(-1)!.id }, '?limit=1');
      assert.equal((await resumed.events.lead()).lead.leadId, two.leadId);
      assert.equal((await resumed.events.lead()).lead.leadId, three.leadId);
      const four = await create(b.app, writerKey, 'R4');
      assert.equal((await resumed.events.lead()).lead.leadId, four.leadId);
      resumed.stop.abort();
      // Last-Event-ID wins over a cursor in the URL (an EventSource reconnects with both).
      const early = (await page(a.app, key)).pollCursor;
      const again = await openStream(
        a.base,
        key,
        { 'last-event-id': seen.at(-1)!.id },
        `?cursor=${encodeURIComponent(early)}`,
      );
      assert.equal((await again.events.lead()).lead.leadId, two.leadId);
      again.stop.abort();
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('the store as metrics observe it shares the store’s one signal (which the store’s close ends)', () => {
      const observed = observeStore(a.store, { metrics: null, tracer: null, poolMax: null });
      assert.equal(observed.feed, a.store.feed);
    });

    it('a closing server answers its long-polls and ends its streams at once', async () => {
      const c = await serve(a.store);
      const poll = await caughtUp(c.app, key, []);
      const answer = fetch(`${c.base}${V2}/changes?wait=${LONG}&cursor=${encodeURIComponent(poll)}`, {
        headers: auth(key),
      });
      const { events } = await openStream(c.base, key, { 'last-event-id': poll });
      await eventually(async () => assert.equal(a.store.feed.waiting(), 2), LONG * 1000);
      // Without the let-go the long-poll would hold the close for its 30 s, the stream forever.
      await c.app.close();
      const res = await answer;
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('connection'), 'close');
      assert.deepEqual(((await res.json()) as { data: ChangesPage }).data.leads, []);
      await assert.rejects(async () => {
        for (;;) await events.next();
      }, /the stream ended/);
      // The stream ends on the abort itself; its watch closes as the stream's loop unwinds.
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });

    it('a stream with nothing to send gives a bookmark to resume from; a bad Last-Event-ID is a 400', async () => {
      const { events, stop } = await openStream(a.base, outsiderKey);
      let b1: Block;
      do b1 = await events.next();
      while (b1.event !== 'bookmark');
      assert.deepEqual(JSON.parse(b1.data!), { cursor: b1.id });
      stop.abort();
      const resumed = await openStream(a.base, outsiderKey, { 'last-event-id': b1.id! });
      resumed.stop.abort();
      // Another team's resume point is not this key's.
      const res = await fetch(`${a.base}${V2}/changes`, {
        headers: { ...auth(key), accept: 'text/event-stream', 'last-event-id': b1.id! },
      });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      const problem = (await res.json()) as { invalid_params: { name: string }[] };
      assert.deepEqual(
        problem.invalid_params.map((p) => p.name),
        ['Last-Event-ID'],
      );
      await eventually(async () => assert.equal(a.store.feed.waiting(), 0), LONG * 1000);
    });
  });
}
