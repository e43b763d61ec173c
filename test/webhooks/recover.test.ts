import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import { Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { Receiver } from './receiver.js';

/**
 * Issue 41 §3 against real receivers on loopback: `POST …/recover` re-delivers exactly the failed
 * deliveries since the time given, none twice (two recovers side by side); `GET …/deliveries`
 * pages through an endpoint's deliveries with their attempts; an endpoint leadline disables is
 * announced to the team's other endpoints (`webhook.endpoint.disabled`) and counted.
 *
 * The API and the loop share one clock, which the test moves forward through the retry
 * schedule: a recovered delivery is due at the recover's `now`, so the loop's next round takes it.
 */
const PATH = '/api/pub/v2/webhooks';
const TEAM = 4101;
const ADMIN = 41011;
const OTHER_TEAM = 4102;
const OTHER_ADMIN = 41021;

let leadNo = 0;
const lead = () => ({
  type: 'lead',
  userId: ADMIN,
  id: `r-${++leadNo}`,
  epoch: 1_750_000_000_000 + leadNo,
  isLead: true,
  name: `Recovered Person ${leadNo}`,
  email: `recovered.${leadNo}@person.test`,
});

for (const engine of enginesUnderTest()) {
  describe(`webhook recover and delivery history [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let otherKey: string;
    let loop: DeliveryLoop;
    let metrics: Metrics;
    let offset = 0;
    const now = () => Date.now() + offset;
    const config = loadWebhookConfig({
      LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      LEADLINE_WEBHOOK_POLL_MS: '10',
    });
    const receivers: Receiver[] = [];

    async function hooked(body: object = {}): Promise<{ r: Receiver; id: string }> {
      const r = await Receiver.start();
      receivers.push(r);
      const res = await app.inject({
        method: 'POST',
        url: PATH,
        headers: auth(key),
        payload: { url: r.url, ...body },
      });
      assert.equal(res.statusCode, 201, res.body);
      const { id, secret } = res.json().data;
      r.secrets = [secret];
      return { r, id };
    }
    const recover = (id: string, payload: unknown, k = key) =>
      app.inject({
        method: 'POST',
        url: `${PATH}/${id}/recover`,
        headers: auth(k),
        payload: payload as object,
      });
    const history = (id: string, query = '', k = key) =>
      app.inject({ url: `${PATH}/${id}/deliveries${query}`, headers: auth(k) });
    const remove = (id: string) => app.inject({ method: 'DELETE', url: `${PATH}/${id}`, headers: auth(key) });

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Recovered' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@recovered.test', role: 'admin', pid: 'p' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        {
          type: 'member',
          id: OTHER_ADMIN,
          teamId: OTHER_TEAM,
          email: 'admin@elsewhere.test',
          role: 'admin',
          pid: 'q',
        },
      ]);
      app = await buildApp({ config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }), store, now });
      key = await keyFor(store, ADMIN);
      otherKey = await keyFor(store, OTHER_ADMIN);
      metrics = new Metrics(engine);
      const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2));
      loop = new DeliveryLoop(
        store,
        config,
        logger,
        new Sender(config, 16),
        now,
        metrics.deliveryObserver(),
        metrics.disabledObserver(),
      );
      loop.start();
    });
    after(async () => {
      await loop.stop();
      for (const r of receivers) await r.close();
      await app.close();
      await made.cleanup();
    });

    it('recover re-delivers exactly the failed deliveries since the time given, none twice', async () => {
      const { r, id } = await hooked();
      r.answer = () => 500;
      await load(store, [lead()]); // fails too, but before `since`: not recovered
      await new Promise((done) => setTimeout(done, 5));
      const since = Date.now(); // events carry the time their lead was stored
      await load(store, [lead(), lead(), lead()]);
      const all = async () => (await store.deliveries.deliveries('operator', id, 10)) ?? [];
      // Through the schedule in 13 h steps: every attempt fails until each delivery has failed.
      for (let i = 0; i < 60; i++) {
        const d = await all();
        if (d.length === 4 && d.every((x) => x.state === 'failed')) break;
        offset += 13 * 3_600_000;
        await new Promise((done) => setTimeout(done, 50));
      }
      const failed = await all();
      assert.deepEqual(
        failed.map((x) => x.state),
        ['failed', 'failed', 'failed', 'failed'],
      );
      const before = failed.filter((d) => d.createdAt < since).map((d) => d.eventId);
      const recoverable = failed.filter((d) => d.createdAt >= since).map((d) => d.eventId);
      assert.equal(before.length, 1);
      assert.equal(recoverable.length, 3);
      // Failing five days may have disabled it: a team admin enables it again, then recovers.
      const enabled = await app.inject({
        method: 'PATCH',
        url: `${PATH}/${id}`,
        headers: auth(key),
        payload: { enabled: true },
      });
      assert.equal(enabled.statusCode, 200, enabled.body);
      r.answer = () => 200;
      const seen = r.received.length;
      const body = { since: new Date(since).toISOString() };
      const [a, b] = await Promise.all([recover(id, body), recover(id, body)]);
      assert.equal(a.statusCode, 202, a.body);
      assert.equal(b.statusCode, 202, b.body);
      assert.equal(a.json().data.recovered + b.json().data.recovered, 3, `${a.body} ${b.body}`);
      await eventually(async () => assert.equal(r.received.length, seen + 3));
      // The loop goes on past the claim lease: nothing recovered is sent again.
      for (let i = 0; i < 3; i++) {
        offset += 13 * 3_600_000;
        await new Promise((done) => setTimeout(done, 100));
      }
      const resent = r.received.slice(seen).map((x) => x.id);
      assert.deepEqual([...resent].sort(), [...recoverable].sort(), 'each recovered delivery once');
      const after = await eventually(async () => {
        const d = await all();
        assert.equal(d.filter((x) => x.state === 'delivered').length, 3);
        return d;
      });
      assert.deepEqual(
        after.filter((x) => x.state === 'failed').map((x) => x.eventId),
        before,
      );
      // A third recover finds nothing failed since then.
      const again = await recover(id, body);
      assert.deepEqual(again.json(), { data: { recovered: 0 } });
      await remove(id);
    });

    it('recover refuses a bad `since` (400) and another team’s endpoint (404)', async () => {
      const { id } = await hooked();
      for (const payload of [
        {},
        { since: 'yesterday' },
        { since: '2026-02-30T00:00:00Z' },
        { since: 1_750_000_000_000 },
        { since: new Date(now() + 3_600_000).toISOString() },
      ]) {
        const res = await recover(id, payload);
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
        assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
        assert.match(res.json().detail, /since/);
      }
      const ok = { since: new Date(now() - 60_000).toISOString() };
      assert.equal((await recover(id, ok, otherKey)).statusCode, 404);
      assert.equal((await recover('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', ok)).statusCode, 404);
      await remove(id);
    });

    it('lists deliveries newest first, a state at a time, page by page, with each attempt', async () => {
      // Leads are stored at the real time: an endpoint registered "later" (the moved clock) takes none.
      offset = 0;
      const { r, id } = await hooked();
      r.answer = (_x, nth) => (nth <= 2 ? 200 : 503);
      r.body = 'receiver says hi';
      await load(store, [lead(), lead(), lead(), lead()]);
      const stored = await eventually(async () => {
        const d = (await store.deliveries.deliveries('operator', id, 10)) ?? [];
        assert.equal(d.length, 4);
        assert.ok(
          d.every((x) => x.attempts.length >= 1),
          'each attempted',
        );
        assert.equal(d.filter((x) => x.state === 'delivered').length, 2);
        return d;
      });
      // Page through one at a time: every delivery once, newest first.
      const ids: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await history(id, `?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json().data;
        assert.ok(page.deliveries.length <= 1, 'at most the limit');
        ids.push(...page.deliveries.map((d: { id: number }) => d.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(
        ids,
        stored.map((d) => d.id),
      );
      const delivered = (await history(id, '?state=delivered')).json().data;
      const pending = (await history(id, '?state=pending')).json().data;
      assert.equal(delivered.deliveries.length, 2);
      assert.equal(pending.deliveries.length, 2, 'the 503s wait for their retry');
      assert.equal(delivered.nextCursor, null);
      const d = delivered.deliveries[0];
      assert.equal(d.type, 'lead.created');
      assert.equal(d.state, 'delivered');
      assert.equal(d.nextAttemptAt, null);
      assert.equal(typeof d.eventId, 'string');
      assert.deepEqual(Object.keys(d.attempts[0]).sort(), ['answer', 'at', 'latencyMs', 'status']);
      assert.equal(d.attempts[0].status, 200);
      assert.equal(d.attempts[0].answer, 'receiver says hi');
      const p = pending.deliveries[0];
      assert.equal(p.attempts[0].status, 503);
      assert.ok(Date.parse(p.nextAttemptAt) > Date.parse(p.attempts[0].at), 'a retry is scheduled');
      // A cursor is bound to its filter, its endpoint and its team.
      const first = (await history(id, '?limit=1&state=delivered')).json().data.nextCursor as string;
      assert.equal((await history(id, `?limit=1&state=pending&cursor=${first}`)).statusCode, 400);
      assert.equal((await history(id, '?state=lost')).statusCode, 400);
      assert.equal((await history(id, '?limit=0')).statusCode, 400);
      assert.equal((await history(id, '', otherKey)).statusCode, 404);
      await remove(id);
    });

    it('an endpoint leadline disables is announced to the team’s other endpoints, and counted', async () => {
      offset = 0;
      const gone = await hooked();
      gone.r.answer = () => 410;
      const told = await hooked(); // default event types: lead.created and webhook.endpoint.disabled
      const deaf = await hooked({ eventTypes: ['lead.created'] });
      const thin = await hooked({ payload: 'thin' });
      const created = (await app.inject({ url: `${PATH}/${told.id}`, headers: auth(key) })).json().data;
      assert.deepEqual(created.eventTypes, ['lead.created', 'webhook.endpoint.disabled']);
      const counted = async () =>
        Number(
          /leadline_webhook_endpoints_disabled_total\{reason="gone"\} (\d+)/.exec(
            await metrics.text(),
          )?.[1] ?? 0,
        );
      const before = await counted();
      await load(store, [lead()]);
      const notice = await eventually(async () => {
        const got = told.r.received.find((x) => x.payload.type === 'webhook.endpoint.disabled');
        assert.ok(got, 'not received yet');
        return got;
      });
      const endpoint = (await app.inject({ url: `${PATH}/${gone.id}`, headers: auth(key) })).json().data;
      assert.equal(endpoint.enabled, false);
      assert.deepEqual(notice.payload.data, {
        endpointId: gone.id,
        url: gone.r.url,
        reason: 'the endpoint answered 410 Gone',
        disabledAt: notice.payload.timestamp,
      });
      assert.doesNotMatch(notice.body, /Recovered Person|@person\.test/, 'no personal value');
      const thinNotice = await eventually(async () => {
        const got = thin.r.received.find((x) => x.payload.type === 'webhook.endpoint.disabled');
        assert.ok(got, 'not received yet');
        return got;
      });
      assert.deepEqual(thinNotice.payload.data, { endpointId: gone.id });
      assert.equal(thinNotice.id, notice.id, 'one event, one webhook-id');
      // One event log: the notice is there too, under its webhook-id, with the full body.
      // PostgreSQL's log shows an event once no older transaction is still open: read as a follower.
      await eventually(async () => {
        const logged = (
          await app.inject({ url: '/api/pub/v2/events?types=webhook.endpoint.disabled', headers: auth(key) })
        ).json().data.events;
        assert.deepEqual(
          logged.map((e: { id: string; data: unknown }) => [e.id, e.data]),
          [[notice.id, notice.payload.data]],
        );
      });
      assert.equal(await counted(), before + 1);
      // Nothing more: one notice per disabling, none to an endpoint that did not ask for it.
      await load(store, [lead()]);
      await eventually(async () =>
        assert.equal(told.r.received.filter((x) => x.payload.type === 'lead.created').length, 2),
      );
      offset += 3_600_000;
      await new Promise((done) => setTimeout(done, 200));
      assert.equal(told.r.received.filter((x) => x.payload.type === 'webhook.endpoint.disabled').length, 1);
      assert.equal(deaf.r.received.filter((x) => x.payload.type === 'webhook.endpoint.disabled').length, 0);
      assert.equal(gone.r.received.length, 1);
      assert.equal(await counted(), before + 1);
      // The console's webhooks view and the history say so too.
      const listed = (await history(told.id, '?state=delivered')).json().data.deliveries;
      assert.ok(
        listed.some((d: { type: string }) => d.type === 'webhook.endpoint.disabled'),
        'the notice is in the history',
      );
      for (const e of [gone, told, deaf, thin]) await remove(e.id);
    });
  });
}
