import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { Compile } from 'typebox/compile';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { LoggedEvent } from '../../src/schemas/webhooks.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, makeApp } from '../support/helpers.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { Receiver } from '../webhooks/receiver.js';
import { assertV2Problem, V2 } from './client.js';
import { M, searchRecords } from './search-fixture.js';

/** GET /api/pub/v2/events (docs/v2.md "Events"), on both engines. */

const EVENTS = '/api/pub/v2/events';
const checkEvent = Compile(LoggedEvent);

interface Page {
  events: LoggedEvent[];
  nextCursor: string | null;
  pollCursor: string;
}

async function page(
  app: FastifyInstance,
  key: string,
  q: { cursor?: string; types?: string; limit?: number } = {},
): Promise<LightMyRequestResponse> {
  const s = new URLSearchParams();
  if (q.cursor !== undefined) s.set('cursor', q.cursor);
  if (q.types !== undefined) s.set('types', q.types);
  if (q.limit !== undefined) s.set('limit', String(q.limit));
  return app.inject({ method: 'GET', url: `${EVENTS}${s.size > 0 ? `?${s}` : ''}`, headers: auth(key) });
}

function ok(res: LightMyRequestResponse): Page {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  const data = (res.json() as { data: Page }).data;
  for (const e of data.events)
    assert.ok(checkEvent.Check(e), `event shape: ${JSON.stringify([...checkEvent.Errors(e)][0])}`);
  return data;
}

/** Follows the log from `cursor` until caught up. */
async function drain(
  app: FastifyInstance,
  key: string,
  q: { cursor?: string; types?: string; limit?: number } = {},
): Promise<{ events: LoggedEvent[]; poll: string }> {
  const events: LoggedEvent[] = [];
  let p = ok(await page(app, key, q));
  for (;;) {
    events.push(...p.events);
    if (p.nextCursor === null) return { events, poll: p.pollCursor };
    p = ok(await page(app, key, { ...q, cursor: p.nextCursor }));
  }
}

/** What an event is about, readable in assertions: `type legacyId` (or the endpoint/lead id). */
function label(e: LoggedEvent, ids: Map<string, string>): string {
  const d = e.data as { legacyLeadId?: string; leadId?: string; endpointId?: string };
  if (d.legacyLeadId !== undefined) return `${e.type} ${d.legacyLeadId}`;
  if (d.leadId !== undefined) return `${e.type} ${ids.get(d.leadId) ?? d.leadId}`;
  return e.type;
}

for (const engine of enginesUnderTest()) {
  describe(`v2 events [${engine}]`, () => {
    let store: Store;
    let app: FastifyInstance;
    let cleanup: () => Promise<void>;
    const key = {} as Record<keyof typeof M, string>;
    /** leadId → legacy id. */
    const ids = new Map<string, string>();
    const uuidOf = (legacy: string) => [...ids].find(([, l]) => l === legacy)![0];
    const labels = async (k: string, q: { cursor?: string; types?: string; limit?: number } = {}) =>
      (await drain(app, k, q)).events.map((e) => label(e, ids));

    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      await load(store, searchRecords());
      for (const [name, id] of Object.entries(M))
        key[name as keyof typeof M] = await keyFor(store, { member: id, legacyV1: true });
      app = await makeApp(store, { LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
      cleanup = async () => {
        await app.close();
        await made.cleanup();
      };
      const leads = await eventually(async () => {
        const all = await app.inject({ url: `${V2}/changes?limit=100`, headers: auth(key.admin) });
        const got = all.json().data.leads as { leadId: string; legacyLeadId: string }[];
        assert.equal(got.length, 5);
        return got;
      });
      for (const l of leads) ids.set(l.leadId, l.legacyLeadId);
    });
    after(async () => cleanup());

    it('holds every event in the order stored, though the team has no endpoint', async () => {
      assert.deepEqual(await store.webhooks.endpoints(null), [], 'no endpoint anywhere');
      await eventually(async () =>
        assert.deepEqual(await labels(key.admin), [
          'lead.created a1',
          'lead.created a2',
          'lead.created a3',
          'lead.created a4',
          'lead.created a5',
        ]),
      );
      assert.deepEqual(await labels(key.outsider), ['lead.created b1'], 'each team its own');
      const first = (await drain(app, key.admin)).events[0]!;
      assert.equal(first.timestamp.endsWith('Z'), true);
      assert.equal((first.data as { leadId: string }).leadId, uuidOf('a1'), 'data: the lead as v2 gives it');
    });

    it('a member sees the events of the leads they may read, team events are for admins', async () => {
      // An update of max's lead a3 and of mia's lead a1, by the admin.
      for (const [legacy, title] of [
        ['a3', 'Coach'],
        ['a1', 'Buyer'],
      ] as const) {
        const res = await app.inject({
          method: 'PATCH',
          url: `${V2}/${uuidOf(legacy)}`,
          headers: { ...auth(key.admin), 'content-type': 'application/merge-patch+json' },
          payload: { systemFields: { jobTitle: title } },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const endpoint = await store.webhooks.addEndpoint({
        teamId: 501,
        url: 'https://example.com/hook',
        description: null,
        eventTypes: ['lead.erased'],
        members: null,
        subteams: null,
        secret: 'whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0dGVzdA==',
        createdAt: Date.now(),
      });
      const testId = await store.deliveries.sendTest({ teamId: 501 }, endpoint.id, Date.now());
      assert.ok(testId !== null);
      // Disabled: its delivery stays pending, never attempted (the pruning test counts on it).
      await store.webhooks.updateEndpoint('operator', endpoint.id, { enabled: false }, Date.now());
      const tail = ['lead.updated a3', 'lead.updated a1', 'webhook.test'];
      await eventually(async () => assert.deepEqual((await labels(key.admin)).slice(5), tail));
      const test = (await drain(app, key.admin)).events.at(-1)!;
      assert.equal(test.id, testId, 'the test event is the one its delivery carries');
      assert.deepEqual(test.data, { endpointId: endpoint.id });
      assert.deepEqual(await labels(key.mia), ['lead.created a1', 'lead.created a2', 'lead.updated a1']);
      assert.deepEqual(await labels(key.max), ['lead.created a3', 'lead.updated a3']);
      assert.deepEqual(
        await labels(key.subAdmin),
        [
          'lead.created a1',
          'lead.created a2',
          'lead.created a3',
          'lead.created a4',
          'lead.updated a3',
          'lead.updated a1',
        ],
        'a subteam admin: the subteam’s leads, not the team’s webhook.test',
      );
      assert.deepEqual(await labels(key.outsider), ['lead.created b1']);
    });

    it('pages: the same events whatever the limit; nextCursor only after a full page', async () => {
      const whole = await drain(app, key.admin, { limit: 1000 });
      const paged = await drain(app, key.admin, { limit: 2 });
      assert.deepEqual(
        paged.events.map((e) => e.id),
        whole.events.map((e) => e.id),
      );
      assert.equal(new Set(whole.events.map((e) => e.id)).size, whole.events.length, 'no repeats');
      const short = ok(await page(app, key.admin, { limit: 1000 }));
      assert.equal(short.nextCursor, null);
      const caughtUp = ok(await page(app, key.admin, { cursor: short.pollCursor }));
      assert.deepEqual(caughtUp.events, [], 'nothing new since');
    });

    it('types filters, and a cursor is bound to its types', async () => {
      assert.deepEqual(await labels(key.admin, { types: 'lead.updated' }), [
        'lead.updated a3',
        'lead.updated a1',
      ]);
      assert.deepEqual(await labels(key.admin, { types: 'webhook.test,lead.updated', limit: 1 }), [
        'lead.updated a3',
        'lead.updated a1',
        'webhook.test',
      ]);
      assert.deepEqual(await labels(key.mia, { types: 'webhook.test' }), [], 'not for a member');
      const cursor = ok(await page(app, key.admin, { types: 'lead.updated', limit: 1 })).nextCursor!;
      assert.ok(cursor !== null);
      for (const types of [undefined, 'lead.created', 'lead.updated,lead.created']) {
        const res = await page(app, key.admin, { cursor, ...(types === undefined ? {} : { types }) });
        assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['cursor']);
      }
      // The same types in another order: the same filter.
      const both = ok(await page(app, key.admin, { types: 'lead.updated,webhook.test', limit: 1 }))
        .nextCursor!;
      assert.deepEqual(await labels(key.admin, { types: 'webhook.test,lead.updated', cursor: both }), [
        'lead.updated a1',
        'webhook.test',
      ]);
      const theirs = ok(await page(app, key.outsider)).pollCursor;
      assertInvalidParams(
        assertV2Problem(await page(app, key.admin, { cursor: theirs }), 400, 'invalid-parameters'),
        ['cursor'],
      );
      for (const q of [{ types: 'lead.nothing' }, { types: 'lead.created,lead.created' }, { limit: 0 }]) {
        const res = await page(app, key.admin, q);
        assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), Object.keys(q));
      }
      const changesCursor = (await app.inject({ url: `${V2}/changes`, headers: auth(key.admin) })).json().data
        .pollCursor as string;
      const res = await page(app, key.admin, { cursor: changesCursor });
      assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['cursor']);
    });

    it('the webhook-id of a delivered event is its id in the log', async () => {
      const r = await Receiver.start();
      try {
        const made = await app.inject({
          method: 'POST',
          url: '/api/pub/v2/webhooks',
          headers: auth(key.admin),
          payload: { url: r.url, eventTypes: ['lead.created'] },
        });
        assert.equal(made.statusCode, 201, made.body);
        r.secrets = [made.json().data.secret];
        const created = await app.inject({
          method: 'POST',
          url: V2,
          headers: { ...auth(key.mia), 'content-type': 'application/json' },
          payload: { leadSource: 'QR_CODE_SCAN', systemFields: { fullName: 'Nia Delivered' } },
        });
        assert.equal(created.statusCode, 201, created.body);
        const leadId = created.json().data.leadId as string;
        const loop = new DeliveryLoop(
          store,
          loadWebhookConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_POLL_MS: '10' }),
          pino({ level: 'silent' }),
        );
        loop.start();
        try {
          await eventually(async () => assert.equal(r.received.length, 1));
        } finally {
          await loop.stop();
        }
        const got = r.received[0]!;
        const logged = await eventually(async () => {
          const e = (await drain(app, key.mia, { types: 'lead.created' })).events.at(-1)!;
          assert.equal((e.data as { leadId: string }).leadId, leadId);
          return e;
        });
        assert.equal(got.id, logged.id, 'webhook-id = event id');
        const body = JSON.parse(got.body) as { type: string; timestamp: string; data: unknown };
        assert.deepEqual(
          { type: logged.type, timestamp: logged.timestamp, data: logged.data },
          body,
          'the same body as the delivery',
        );
      } finally {
        await r.close();
      }
    });

    it('an erasure leaves no personal value of the lead in the log: its events go, lead.erased carries the id', async () => {
      const a2 = uuidOf('a2');
      assert.ok((await drain(app, key.admin)).events.some((e) => JSON.stringify(e).includes('García')));
      const res = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/erasures',
        headers: { ...auth(key.admin), 'content-type': 'application/json' },
        payload: { leadIds: [a2] },
      });
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
      const events = await eventually(async () => {
        const got = (await drain(app, key.admin)).events;
        assert.equal(got.at(-1)?.type, 'lead.erased');
        return got;
      });
      const about = events.filter((e) => JSON.stringify(e.data).includes(a2));
      assert.deepEqual(
        about.map((e) => [e.type, e.data]),
        [['lead.erased', { leadId: a2 }]],
        'the earlier events of the lead are gone; the erasure’s carries its id alone',
      );
      assert.ok(!JSON.stringify(events).includes('García'), 'no value of the erased lead');
      assert.deepEqual(
        (await drain(app, key.mia, { types: 'lead.erased' })).events.map((e) => e.data),
        [{ leadId: a2 }],
        'its member sees the erasure too',
      );
    });

    it('a cursor behind the pruned events answers 410 cursor-expired; a fresh one goes on', async () => {
      const old = ok(await page(app, key.admin, { limit: 1 })).nextCursor!;
      assert.ok(old !== null);
      // Everything dispatched, then the retention prunes every event made until now.
      while ((await store.deliveries.dispatch(1000, Date.now())) > 0);
      const now = Date.now() + 1;
      await store.deliveries.expire(0, now, now);
      const res = await page(app, key.admin, { cursor: old });
      const problem = assertV2Problem(res, 410, 'cursor-expired');
      assert.match(String(problem.detail), /Resynchronise/);
      // A fresh start: what is left — from the test event on, whose delivery still waits: the log
      // is pruned up to it, never around it — then new events.
      const fresh = await drain(app, key.admin);
      assert.deepEqual(
        fresh.events.map((e) => e.type),
        ['webhook.test', 'lead.created', 'lead.erased'],
        'an event a pending delivery needs is kept, and what follows it',
      );
      const created = await app.inject({
        method: 'POST',
        url: V2,
        headers: { ...auth(key.admin), 'content-type': 'application/json' },
        payload: { leadSource: 'QR_CODE_SCAN', systemFields: { fullName: 'After Pruning' } },
      });
      assert.equal(created.statusCode, 201, created.body);
      await eventually(async () =>
        assert.deepEqual(
          (await drain(app, key.admin, { cursor: fresh.poll })).events.map((e) => e.type),
          ['lead.created'],
        ),
      );
    });
  });
}
