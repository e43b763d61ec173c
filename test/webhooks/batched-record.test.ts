import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import type { Store } from '../../src/store.js';
import {
  type AttemptOutcome,
  CLAIM_LEASE_MS,
  type ClaimedDelivery,
  endpointChanges,
  type FinishedAttempt,
} from '../../src/webhooks/delivery.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';
import { Receiver } from './receiver.js';

/**
 * The delivery loop records attempts in batches (issue 13 §4, throughput): a batch with mixed
 * outcomes records every attempt and each endpoint's health as one-at-a-time records would; a
 * record that comes after a replay or a drop leaves what they did; an attempt made and never
 * recorded (the process died, or the store failed) is made again after its lease; deliveries
 * claimed ahead and not started when the loop stops are handed back, due at once.
 */
const TEAM = 1701;
const MEMBER = 17011;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let leadNo = 0;
const leads = (n: number) =>
  Array.from({ length: n }, () => ({
    type: 'lead',
    userId: MEMBER,
    id: `br-${++leadNo}`,
    epoch: 1_750_000_000_000 + leadNo,
    isLead: true,
  }));
const finished = (d: ClaimedDelivery, at: number, status: number | null, outcome: AttemptOutcome) => ({
  delivery: d,
  result: { at, status, latencyMs: 7, answer: `answer ${status}` },
  outcome,
});
const ok: AttemptOutcome = { kind: 'delivered' };
const retry = (at: number): AttemptOutcome => ({ kind: 'retry', at });

describe('endpointChanges: a batch of attempts, as one-at-a-time records would leave each endpoint', () => {
  const d = (endpointId: string) => ({ endpointId }) as ClaimedDelivery;
  const f = (endpointId: string, at: number, outcome: AttemptOutcome) =>
    ({
      delivery: d(endpointId),
      result: { at, status: 0, latencyMs: 0, answer: '' },
      outcome,
    }) as FinishedAttempt;
  it('the last success clears; a failure after a success restarts; failures alone keep the earliest', () => {
    assert.deepEqual(
      endpointChanges([
        f('b', 1, retry(9)),
        f('a', 2, retry(9)),
        f('a', 3, ok),
        f('b', 4, retry(9)),
        f('c', 5, ok),
        f('c', 6, retry(9)),
        f('c', 7, { kind: 'failed-and-disable', reason: 'gone' }),
      ]),
      [
        { endpointId: 'a', failing: { clear: true }, disable: null },
        { endpointId: 'b', failing: { clear: false, since: 1, restart: false }, disable: null },
        {
          endpointId: 'c',
          failing: { clear: false, since: 6, restart: true },
          // The metric's label comes from the status (410: gone; here none: failing).
          disable: { reason: 'gone', at: 7, cause: 'failing' },
        },
      ],
    );
  });
});

for (const engine of enginesUnderTest()) {
  describe(`batched attempt records [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    const now = Date.now();
    const endpoint = async (url = 'http://127.0.0.1:9/hooks', team = TEAM) =>
      (await endpointFor(store, team, { url, secret: SECRET, createdAt: now - 60_000 })).id;
    /** Claims every due delivery, by endpoint. */
    const claimAll = async (at: number) => {
      const got = await store.deliveries.claim(1000, at);
      const by = new Map<string, ClaimedDelivery[]>();
      for (const d of got) by.set(d.endpointId, [...(by.get(d.endpointId) ?? []), d]);
      return by;
    };
    /** The endpoint's failing_since, as a claim reads it (a test event claimed). */
    const failingSince = async (endpointId: string, at: number) => {
      await store.deliveries.sendTest('operator', endpointId, at);
      const [d] = (await claimAll(at)).get(endpointId) ?? [];
      assert.ok(d, 'the test event is claimed');
      await store.deliveries.recordAttempts([
        finished(d, at, null, { kind: 'failed' }), // a failure: keeps failing_since when set
      ]);
      return d.failingSince;
    };

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Batched' },
        { type: 'member', id: MEMBER, teamId: TEAM, email: 'b@batched.test', role: 'admin', pid: 'p' },
      ]);
    });
    after(async () => {
      await made.cleanup();
    });

    it('records a batch with mixed outcomes: every attempt, each next step, each endpoint', async () => {
      const [a, b] = [await endpoint(), await endpoint()];
      await load(store, leads(3));
      await store.deliveries.dispatch(100, now);
      const claimed = await claimAll(now);
      const [a1, a2, a3] = claimed.get(a)!;
      const [b1, b2, b3] = claimed.get(b)!;
      assert.ok(a3 && b3, 'three deliveries to each endpoint');
      await store.deliveries.recordAttempts([
        finished(a1!, now + 1, 500, retry(now + 5_000)),
        finished(b1!, now + 2, 200, ok),
        finished(a2!, now + 3, 204, ok),
        finished(b2!, now + 4, 503, retry(now + 6_000)),
        finished(a3, now + 5, null, { kind: 'failed' }),
        finished(b3, now + 6, 410, { kind: 'failed-and-disable', reason: 'the endpoint answered 410 Gone' }),
      ]);
      const states = async (id: string) =>
        (await store.deliveries.deliveries('operator', id, 10))!
          .sort((x, y) => x.id - y.id)
          .map((d) => [d.state, d.nextAttemptAt, d.finishedAt, d.attempts]);
      const attempt = (at: number, status: number | null) => [
        { at, status, latencyMs: 7, answer: `answer ${status}` },
      ];
      assert.deepEqual(await states(a), [
        ['pending', now + 5_000, null, attempt(now + 1, 500)],
        ['delivered', null, now + 3, attempt(now + 3, 204)],
        ['failed', null, now + 5, attempt(now + 5, null)],
      ]);
      assert.deepEqual(await states(b), [
        ['delivered', null, now + 2, attempt(now + 2, 200)],
        ['pending', now + 6_000, null, attempt(now + 4, 503)],
        ['failed', null, now + 6, attempt(now + 6, 410)],
      ]);
      const eb = await store.webhooks.endpoint('operator', b);
      assert.deepEqual([eb?.enabled, eb?.disabledReason], [false, 'the endpoint answered 410 Gone']);
      // a: its last attempt failed after a success in the batch: failing since that failure.
      assert.equal(await failingSince(a, now + 7), now + 5);
      // Then a success clears it, in a batch of one.
      await store.deliveries.sendTest('operator', a, now + 8);
      const [t] = (await claimAll(now + 8)).get(a)!;
      await store.deliveries.recordAttempts([finished(t!, now + 8, 200, ok)]);
      assert.equal(await failingSince(a, now + 9), null);
    });

    it('a record coming after a replay or a drop of its delivery leaves what they did', async () => {
      const e = await endpoint();
      await load(store, leads(2));
      await store.deliveries.dispatch(100, now);
      const [replayed, dropped] = (await claimAll(now)).get(e)!;
      assert.ok(replayed && dropped);
      // Replayed while its attempt was in flight: due again, the replay's attempt to come.
      assert.equal(await store.deliveries.replay('operator', replayed.id, now + 1), true);
      await store.deliveries.recordAttempts([finished(replayed, now + 2, 200, ok)]);
      const [r] = (await store.deliveries.deliveries('operator', e, 10))!.filter((d) => d.id === replayed.id);
      assert.deepEqual([r!.state, r!.nextAttemptAt, r!.attempts.length], ['pending', now + 1, 1]);
      const [again] = (await claimAll(now + 3)).get(e)!;
      assert.equal(again?.id, replayed.id, 'the replay is claimed');
      assert.equal(again?.attempt, 1, 'the replay starts the schedule over');
      await store.deliveries.recordAttempts([finished(again!, now + 4, 200, ok)]);
      // Dropped (retention) while in flight: stays dropped, with no attempts.
      assert.equal((await store.deliveries.expire(Date.now() + 1, now + 5)) >= 1, true);
      await store.deliveries.recordAttempts([finished(dropped, now + 6, 200, ok)]);
      const [x] = (await store.deliveries.deliveries('operator', e, 10))!.filter((d) => d.id === dropped.id);
      assert.deepEqual([x!.state, x!.attempts], ['dropped', []]);
    });

    it('an attempt made and never recorded is claimed again when its lease runs out, same webhook-id', async () => {
      const e = await endpoint();
      await load(store, leads(1));
      await store.deliveries.dispatch(100, now);
      const [d] = (await claimAll(now)).get(e)!;
      assert.equal(d?.attempt, 1);
      // The process died after the attempt, before its record: nothing is due while the lease runs.
      assert.equal((await claimAll(now + CLAIM_LEASE_MS - 1)).get(e), undefined);
      const [again] = (await claimAll(now + CLAIM_LEASE_MS)).get(e)!;
      assert.deepEqual([again?.id, again?.eventId, again?.attempt], [d!.id, d!.eventId, 2]);
      await store.deliveries.recordAttempts([finished(again!, now + CLAIM_LEASE_MS + 1, 204, ok)]);
    });

    it('a claimed delivery handed back unstarted is due at once, its attempt not counted', async () => {
      const e = await endpoint();
      await load(store, leads(2));
      await store.deliveries.dispatch(100, now);
      const [started, unstarted] = (await claimAll(now)).get(e)!;
      assert.ok(started && unstarted);
      await store.deliveries.release([unstarted], now + 1);
      const back = (await claimAll(now + 1)).get(e)!;
      assert.deepEqual(
        back.map((d) => [d.id, d.attempt]),
        [[unstarted.id, 1]],
        'only the handed-back one is due, as its first attempt',
      );
      // The one started is still leased: handing back another did not make it due.
      assert.equal((await claimAll(now + 2)).get(e), undefined);
      await store.deliveries.recordAttempts([
        finished(started, now + 3, 204, ok),
        finished(back[0]!, now + 3, 204, ok),
      ]);
    });

    it('the loop stopped mid-batch records its attempts and hands back what it claimed ahead', async () => {
      // A team of its own: the loop claims every due delivery, and this team's are the only ones.
      const team = TEAM + 1;
      const member = MEMBER + 10;
      await load(store, [
        { type: 'team', id: team, name: 'Stopped' },
        { type: 'member', id: member, teamId: team, email: 's@stopped.test', role: 'admin', pid: 's' },
      ]);
      const r = await Receiver.start([SECRET]);
      r.delayMs = 300; // the first two stay in flight while the loop stops
      const e = await endpoint(r.url, team);
      await load(
        store,
        leads(6).map((l) => ({ ...l, userId: member })),
      );
      await store.deliveries.dispatch(100, Date.now());
      const config = loadWebhookConfig({
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_CONCURRENCY: '2',
      });
      const loop = new DeliveryLoop(store, config, pino({ level: 'silent' }));
      try {
        loop.start();
        // Two attempts in flight, and (2 × concurrency) − 2 = 2 more claimed ahead, not started.
        await eventually(async () => assert.equal(r.received.length, 2));
        await loop.stop();
      } finally {
        await r.close();
      }
      assert.equal(r.received.length, 2, 'nothing started after stop()');
      const sent = (await store.deliveries.deliveries('operator', e, 10))!.filter((d) =>
        r.ids().has(d.eventId),
      );
      assert.deepEqual(
        sent.map((d) => [d.state, d.attempts.length]),
        [
          ['delivered', 1],
          ['delivered', 1],
        ],
        'the attempts in flight were recorded before stop() returned',
      );
      // The other four are due now, each as its first attempt: the two claimed ahead were handed back.
      const due = (await claimAll(Date.now())).get(e) ?? [];
      assert.deepEqual(
        due.map((d) => d.attempt),
        [1, 1, 1, 1],
      );
      await store.deliveries.recordAttempts(due.map((d) => finished(d, Date.now(), 204, ok)));
    });
  });
}
