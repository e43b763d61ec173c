import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Store } from '../../src/store.js';
import type { AttemptOutcome } from '../../src/webhooks/delivery.js';
import { newSigningSecret } from '../../src/webhooks/secret.js';
import type { Endpoint } from '../../src/webhooks/webhook.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { keyFor, load, testConfig } from '../support/helpers.js';
import { endpointFor } from '../webhooks/endpoints.js';
import { csrfOf, form, type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 15 §5 through the real app: the webhooks views list a team's endpoints and their
 * deliveries; a team admin never sees or replays another team's (by URL either: 404, and the
 * delivery is untouched); a replay without the session's CSRF token is refused; the operator
 * sees and replays every team's. Deliveries are made by the store's own dispatch, claim and
 * record, as the delivery loop makes them.
 */
const A = 1541;
const B = 1542;
const ADMIN_A = 15411;
const ADMIN_B = 15421;

for (const engine of enginesUnderTest()) {
  describe(`console webhooks over HTTP [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    const clock = Date.now();
    let endA: Endpoint;
    let endB: Endpoint;
    let a: Signed;
    let leadNo = 0;

    const addEndpoint = (teamId: number, url: string, description: string) =>
      endpointFor(store, teamId, { url, description, secret: newSigningSecret(), createdAt: clock });
    /** A lead of `member`'s, dispatched to its team's endpoints: one pending delivery each. */
    async function newDelivery(member: number): Promise<void> {
      leadNo += 1;
      await load(store, [
        { type: 'lead', userId: member, id: `cw-${leadNo}`, epoch: clock + leadNo, isLead: true },
      ]);
      await store.deliveries.dispatch(100, clock);
    }
    /** Every due delivery attempted once, answered 500, with `outcome` as the next step. */
    async function attemptAll(outcome: AttemptOutcome): Promise<void> {
      for (const d of await store.deliveries.claim(100, clock))
        await store.deliveries.record(
          d,
          { at: clock, status: 500, latencyMs: 7, answer: 'boom <b>' },
          outcome,
        );
    }
    const get = (url: string, s: Signed | null = a) =>
      app.inject({ url, headers: s === null ? {} : { cookie: s.cookie } });
    const deliveriesOf = async (e: Endpoint) => (await store.deliveries.deliveries('operator', e.id, 50))!;

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'admin@a.test', role: 'admin', pid: 'p-a' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'admin@b.test', role: 'admin', pid: 'p-b' },
        ],
      );
      store = made.store;
      endA = await addEndpoint(A, 'https://a.example/hooks', 'CRM <script>alert(1)</script>');
      endB = await addEndpoint(B, 'https://b.example/secret-hooks', 'team b endpoint');
      // One failed delivery each (B's endpoint disabled by its 410), then one pending for A.
      await newDelivery(ADMIN_A);
      await attemptAll({ kind: 'failed' });
      await newDelivery(ADMIN_B);
      await attemptAll({ kind: 'failed-and-disable', reason: 'the endpoint answered 410 Gone' });
      await newDelivery(ADMIN_A);
      app = await buildApp({ config: testConfig(), store, now: () => clock });
      a = await signIn(app, store, ADMIN_A, clock);
    });
    after(async () => {
      await app.close();
      await made.cleanup();
    });

    test('without a session the views and the replay are a 401 page', async () => {
      const [failed] = (await deliveriesOf(endA)).filter((d) => d.state === 'failed');
      for (const url of ['/console/webhooks', `/console/webhooks/${endA.id}`]) {
        assert.equal((await get(url, null)).statusCode, 401, url);
      }
      const res = await app.inject({
        method: 'POST',
        url: `/console/webhooks/${endA.id}/deliveries/${failed!.id}/replay`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '_csrf=x',
      });
      assert.equal(res.statusCode, 401);
    });

    test('the list says who created each endpoint, and when the key it was made with is revoked', async () => {
      await keyFor(store, ADMIN_A);
      const key = (await store.keys.list(ADMIN_A)).at(-1)!;
      const made = await endpointFor(store, A, {
        url: 'https://a.example/by-key',
        secret: newSigningSecret(),
        createdBy: { via: 'api', memberId: ADMIN_A, keyId: key.id },
        createdAt: clock,
      });
      try {
        await store.keys.revoke(key.id, clock);
        const list = await get('/console/webhooks');
        assert.match(list.body, /<th scope="col">Created by<\/th>/);
        assert.match(
          list.body,
          new RegExp(`member ${ADMIN_A} \\(admin@a\\.test\\), key ${key.id} \\(revoked\\)`),
        );
        assert.match(list.body, /<td>unknown<\/td>/, 'an endpoint made without a recorded creator');
      } finally {
        await store.webhooks.removeEndpoint('operator', made.id);
      }
    });

    test('the endpoint page shows its event types and whether lead.updated carries previous values (issue 39)', async () => {
      const made = await endpointFor(store, A, {
        url: 'https://a.example/changes',
        secret: newSigningSecret(),
        eventTypes: ['lead.updated', 'lead.merged'],
        includePrevious: true,
        createdAt: clock,
      });
      try {
        const page = await get(`/console/webhooks/${made.id}`);
        assert.match(page.body, /<dt>Events<\/dt><dd>lead\.updated, lead\.merged<\/dd>/);
        assert.match(
          page.body,
          /<dt>Previous values<\/dt><dd>sent in lead\.updated \(includePrevious\)<\/dd>/,
        );
        const plain = await get(`/console/webhooks/${endA.id}`);
        assert.match(plain.body, /<dt>Previous values<\/dt><dd>not sent<\/dd>/);
      } finally {
        await store.webhooks.removeEndpoint('operator', made.id);
      }
    });

    test("a team admin sees their team's endpoints and deliveries, escaped", async () => {
      const list = await get('/console/webhooks');
      assert.equal(list.statusCode, 200);
      assert.match(list.body, /https:\/\/a\.example\/hooks/);
      assert.match(list.body, /CRM &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(list.body, /<script>alert/);
      assert.doesNotMatch(list.body, /b\.example|team b endpoint/);
      assert.match(list.body, /1 pending, 1 failed/);
      assert.match(list.body, /aria-current="page">Webhooks</);

      const one = await get(`/console/webhooks/${endA.id}`);
      assert.equal(one.statusCode, 200);
      const [pending, failed] = await deliveriesOf(endA);
      assert.equal(pending!.state, 'pending');
      assert.equal(failed!.state, 'failed');
      assert.match(one.body, new RegExp(`<tr id="delivery-${failed!.id}">`));
      assert.match(one.body, new RegExp(failed!.eventId));
      assert.match(one.body, /<pre class="answer">boom &lt;b&gt;<\/pre>/);
      const replays = [...one.body.matchAll(/deliveries\/(\d+)\/replay/g)].map((m) => Number(m[1]));
      assert.deepEqual(
        replays,
        [failed!.id],
        'Replay is offered for the failed delivery, not the pending one',
      );
      const limited = await get(`/console/webhooks/${endA.id}?limit=1`);
      assert.match(limited.body, /Deliveries, newest first \(1 shown\)/);
    });

    test("another team's endpoint and delivery are not found, by any URL, and stay untouched", async () => {
      const [bFailed] = await deliveriesOf(endB);
      assert.equal(bFailed!.state, 'failed');
      for (const url of [
        `/console/webhooks/${endB.id}`,
        `/console/webhooks/${endB.id.toUpperCase()}`,
        `/console/webhooks?team=${B}`,
        `/console/webhooks/${endA.id}?team=${B}`,
        '/console/webhooks/not-a-uuid',
        '/console/webhooks/00000000-0000-7000-8000-000000000000',
      ]) {
        assert.equal((await get(url)).statusCode, 404, url);
      }
      for (const url of [
        `/console/webhooks/${endB.id}/deliveries/${bFailed!.id}/replay`,
        `/console/webhooks/${endA.id}/deliveries/${bFailed!.id}/replay`,
        `/console/webhooks/${endA.id}/deliveries/x/replay`,
      ]) {
        const res = await form(app, a, url, { _csrf: a.csrf });
        assert.equal(res.statusCode, 404, url);
        assert.match(res.body, /There is nothing at this address for you/);
      }
      const [after] = await deliveriesOf(endB);
      assert.deepEqual([after!.state, after!.attempts.length], ['failed', 1]);
    });

    test('a replay without the CSRF token, or with a wrong one, is refused and changes nothing', async () => {
      const failed = (await deliveriesOf(endA)).find((d) => d.state === 'failed')!;
      const url = `/console/webhooks/${endA.id}/deliveries/${failed.id}/replay`;
      for (const fields of [{}, { _csrf: '0'.repeat(64) }] as Record<string, string>[]) {
        const res = await form(app, a, url, fields);
        assert.equal(res.statusCode, 403);
        assert.match(res.body, /form token is missing or wrong/);
      }
      const still = (await deliveriesOf(endA)).find((d) => d.id === failed.id)!;
      assert.deepEqual([still.state, still.finishedAt], ['failed', failed.finishedAt]);
    });

    test('a replay queues the failed delivery again and says so; a pending one is not replayed', async () => {
      const [pending, failed] = await deliveriesOf(endA);
      const page = await get(`/console/webhooks/${endA.id}`);
      const url = `/console/webhooks/${endA.id}/deliveries/${failed!.id}/replay`;
      const res = await form(app, a, url, { _csrf: csrfOf(page.body) });
      assert.equal(res.statusCode, 303);
      const location = `/console/webhooks/${endA.id}?replayed=${failed!.id}#delivery-${failed!.id}`;
      assert.equal(res.headers.location, location);
      const now = (await deliveriesOf(endA)).find((d) => d.id === failed!.id)!;
      assert.deepEqual([now.state, now.nextAttemptAt, now.eventId], ['pending', clock, failed!.eventId]);
      const shown = await get(location.split('#')[0]!);
      assert.match(
        shown.body,
        new RegExp(`Delivery ${failed!.id} is queued again, with the same webhook-id`),
      );
      const again = await form(app, a, `/console/webhooks/${endA.id}/deliveries/${pending!.id}/replay`, {
        _csrf: a.csrf,
      });
      assert.equal(again.statusCode, 409);
      assert.match(again.body, /already waiting for its next attempt/);
    });

    test('a limit out of range is a 400 page that says what is allowed', async () => {
      for (const limit of ['0', '201', 'ten']) {
        const res = await get(`/console/webhooks/${endA.id}?limit=${limit}`);
        assert.equal(res.statusCode, 400, limit);
        assert.match(res.body, /Limit must be a whole number from 1 to 200/);
      }
    });

    test("the operator sees every team's endpoints, a disabled one's reason, and replays any team's", async () => {
      const op = await signIn(app, store, null, clock);
      const list = await get('/console/webhooks', op);
      assert.match(list.body, /a\.example/);
      assert.match(list.body, /b\.example/);
      assert.match(
        list.body,
        /disabled<\/span> by leadline on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: the endpoint answered 410 Gone/,
      );
      const onlyB = await get(`/console/webhooks?team=${B}`, op);
      assert.doesNotMatch(onlyB.body, /a\.example/);
      const [bFailed] = await deliveriesOf(endB);
      const res = await form(
        app,
        op,
        `/console/webhooks/${endB.id}/deliveries/${bFailed!.id}/replay?team=${B}`,
        {
          _csrf: op.csrf,
        },
      );
      assert.equal(res.statusCode, 303);
      assert.equal(
        res.headers.location,
        `/console/webhooks/${endB.id}?team=${B}&replayed=${bFailed!.id}#delivery-${bFailed!.id}`,
      );
      assert.equal((await deliveriesOf(endB))[0]!.state, 'pending');
      const shown = await get(String(res.headers.location).split('#')[0]!, op);
      assert.match(shown.body, /It waits until the endpoint is enabled again/);
    });
  });
}
