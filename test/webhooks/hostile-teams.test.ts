import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import type { Store } from '../../src/store.js';
import {
  type AttemptResult,
  CLAIM_LEASE_MS,
  type ClaimedDelivery,
  MAX_ATTEMPTS,
} from '../../src/webhooks/delivery.js';
import type { Endpoint } from '../../src/webhooks/webhook.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';
import { HostileReceiver } from './hostile.js';
import { Receiver } from './receiver.js';

/**
 * Issue 36: one team's receivers can never stall, poison or flood delivery for the others — on
 * each engine, against real receivers on loopback and the delivery loop `leadline serve` runs.
 *
 * R20 (docs/reliability.md): with team A's endpoints stalling and trickling at full concurrency,
 * team B's lead.created reaches its receiver with p50 ≤ 1 s.
 */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const [A, B, C] = [3601, 3602, 3603];
const member = (team: number) => team * 10 + 1;
let leadNo = 0;
const leadsOf = (team: number, n: number) =>
  Array.from({ length: n }, () => ({
    type: 'lead',
    userId: member(team),
    id: `ht-${++leadNo}`,
    epoch: 1_750_000_000_000 + leadNo,
    isLead: true,
  }));
const silent = pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const engine of enginesUnderTest()) {
  describe(`one team cannot stall, poison or flood delivery for the others [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    const closers: (() => Promise<void>)[] = [];
    const endpoint = (team: number, url: string) =>
      endpointFor(store, team, { url, secret: SECRET, createdAt: Date.now() - 1_000 });
    const receiver = async () => {
      const r = await Receiver.start([SECRET]);
      closers.push(() => r.close());
      return r;
    };

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(
        store,
        [A, B, C].flatMap((t) => [
          { type: 'team', id: t, name: `Team ${t}` },
          { type: 'member', id: member(t), teamId: t, email: `a@${t}.test`, role: 'admin', pid: `p${t}` },
        ]),
      );
    });
    after(async () => {
      for (const close of closers.reverse()) await close();
      await made.cleanup();
    });

    it('R20: team B is delivered within 1 s (p50) while team A’s 20 endpoints stall and trickle at full concurrency', async () => {
      // The defaults: 64 in flight, 16 per team, 10 s per attempt.
      const config = loadWebhookConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
      const stalling = await HostileReceiver.start('headers-then-silence');
      const trickling = await HostileReceiver.start('trickle');
      closers.push(
        () => stalling.close(),
        () => trickling.close(),
      );
      for (let i = 0; i < 20; i++) await endpoint(A, `${(i % 2 === 0 ? stalling : trickling).url}/${i}`);
      // 80 deliveries for team A: more than every slot of the instance.
      await load(store, leadsOf(A, 4));
      const loop = new DeliveryLoop(store, config, silent);
      loop.start();
      closers.push(() => loop.stop());
      // Its share, and the idle slots lent to it: all but the last `teamConcurrency`.
      await eventually(
        async () => assert.equal(stalling.open + trickling.open, config.concurrency - config.teamConcurrency),
        10_000,
      );

      const r = await receiver();
      await endpoint(B, r.url);
      const latencies: number[] = [];
      for (let i = 0; i < 9; i++) {
        const started = performance.now();
        await load(store, leadsOf(B, 1));
        await eventually(async () => assert.equal(r.received.length, i + 1), 15_000);
        latencies.push(performance.now() - started);
      }
      assert.ok(median(latencies) <= 1_000, `team B's latencies: ${latencies.map(Math.round).join(', ')} ms`);
      // Team A's attempts end at the deadline and are recorded as failures, to be retried.
      const [first] = await store.webhooks.endpoints(A);
      const records = await eventually(async () => {
        const d = await store.deliveries.deliveries({ teamId: A }, first!.id, 10);
        assert.ok(d?.some((x) => x.attempts.length > 0));
        return d!;
      }, 20_000);
      const attempt = records.find((x) => x.attempts.length > 0)!;
      assert.equal(attempt.state, 'pending');
      assert.deepEqual(
        [attempt.attempts[0]!.status, attempt.attempts[0]!.answer],
        [null, 'no answer: status 200, but the answer did not end within 10 s'],
      );
      console.log(`# R20 [${engine}] team B latencies (ms): ${latencies.map(Math.round).join(', ')}`);
      await loop.stop();
      for (const e of await store.webhooks.endpoints(A))
        await store.webhooks.removeEndpoint('operator', e.id);
      await store.webhooks.removeEndpoint('operator', (await store.webhooks.endpoints(B))[0]!.id);
    });

    it('an answer with NUL is recorded as storable text, and the batch it came in is recorded whole', async () => {
      let offset = 0;
      const now = () => Date.now() + offset;
      const config = loadWebhookConfig({
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '200',
      });
      const poison = await receiver();
      poison.answer = () => 500;
      poison.body = 'bad\u0000answer';
      const healthy = [await receiver(), await receiver()];
      const ids = [poison, ...healthy].map((r) => r.url);
      const endpoints: Endpoint[] = [];
      for (const url of ids) endpoints.push(await endpoint(C, url));
      const loop = new DeliveryLoop(store, config, silent, new Sender(config, 8), now);
      loop.start();
      closers.push(() => loop.stop());
      await load(store, leadsOf(C, 1));
      const records = await eventually(async () => {
        const all = await Promise.all(endpoints.map((e) => store.deliveries.deliveries('operator', e.id, 1)));
        for (const d of all) assert.equal(d?.[0]?.attempts.length, 1);
        return all.map((d) => d![0]!);
      });
      assert.deepEqual(
        records.map((d) => [d.state, d.attempts[0]!.status]),
        [
          ['pending', 500],
          ['delivered', 200],
          ['delivered', 200],
        ],
      );
      assert.equal(records[0]!.attempts[0]!.answer, 'bad\uFFFDanswer');
      // Past the lease: nothing is sent again to the healthy receivers.
      offset += CLAIM_LEASE_MS + 1_000;
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.deepEqual(
        healthy.map((h) => h.received.length),
        [1, 1],
      );
      await loop.stop();
      for (const e of endpoints) await store.webhooks.removeEndpoint('operator', e.id);
    });

    if (engine === 'postgres') {
      it('a batch the store refuses is recorded one attempt at a time: one bad row does not hold back the rest', async () => {
        let offset = 0;
        const now = () => Date.now() + offset;
        const config = loadWebhookConfig({
          LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
          LEADLINE_WEBHOOK_POLL_MS: '200',
        });
        const healthy = [await receiver(), await receiver(), await receiver()];
        const ids = await Promise.all(healthy.map((h) => endpoint(C, h.url)));
        const poisoned = ids[0]!.id;
        // A row PostgreSQL cannot take (a NUL in text), as a sender without the storable rule made.
        class Unsanitised extends Sender {
          override async send(d: ClaimedDelivery, secrets: string[], at?: number): Promise<AttemptResult> {
            const r = await super.send(d, secrets, at);
            return d.endpointId === poisoned ? { ...r, answer: 'poison\u0000' } : r;
          }
        }
        const loop = new DeliveryLoop(store, config, silent, new Unsanitised(config, 8), now);
        loop.start();
        closers.push(() => loop.stop());
        await load(store, leadsOf(C, 1));
        await eventually(async () => {
          for (const e of ids.slice(1)) {
            const [d] = (await store.deliveries.deliveries('operator', e.id, 1))!;
            assert.equal(d?.state, 'delivered');
          }
        });
        const [unrecorded] = (await store.deliveries.deliveries('operator', poisoned, 1))!;
        assert.deepEqual([unrecorded!.state, unrecorded!.attempts.length], ['pending', 0]);
        offset += CLAIM_LEASE_MS + 1_000;
        await new Promise((resolve) => setTimeout(resolve, 600));
        assert.deepEqual(
          healthy.slice(1).map((h) => h.received.length),
          [1, 1],
          'the recorded ones are not sent again',
        );
        await loop.stop();
        for (const e of ids) await store.webhooks.removeEndpoint('operator', e.id);
      });
    }

    it('claims share the due deliveries between teams, each team’s oldest first, within its allowance', async () => {
      const team = [await endpoint(A, 'http://127.0.0.1:9/a'), await endpoint(B, 'http://127.0.0.1:9/b')];
      await load(store, leadsOf(A, 30));
      await load(store, leadsOf(B, 2));
      while ((await store.deliveries.dispatch(500, Date.now())) > 0);
      const at = Date.now() + 1_000;
      const teams = (ds: ClaimedDelivery[]) => ds.map((d) => d.teamId).sort();
      // B's two are newer than A's thirty.
      const first = await store.deliveries.claim(8, at, { perTeam: 3, held: new Map() });
      assert.deepEqual(teams(first), [A, A, A, B, B]);
      const held = new Map([[A, 3]]);
      assert.deepEqual(
        teams(await store.deliveries.claim(8, at, { perTeam: 3, held })),
        [],
        'A holds its allowance; B has nothing more due',
      );
      held.set(A, 1);
      assert.deepEqual(teams(await store.deliveries.claim(8, at, { perTeam: 3, held })), [A, A]);
      for (const e of team) await store.webhooks.removeEndpoint('operator', e.id);
    });

    it(`no delivery is claimed after its ${MAX_ATTEMPTS}th attempt, even when none was recorded`, async () => {
      const e = await endpoint(B, 'http://127.0.0.1:9/spent');
      await load(store, leadsOf(B, 1));
      while ((await store.deliveries.dispatch(500, Date.now())) > 0);
      let at = Date.now() + 1_000;
      const claims: number[] = [];
      for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
        // Each claim counts an attempt; no record comes (the store refused each), so the lease runs out.
        const got = (await store.deliveries.claim(10, at)).filter((d) => d.endpointId === e.id);
        claims.push(got.length);
        at += CLAIM_LEASE_MS + 1;
      }
      assert.deepEqual(claims, [...Array(MAX_ATTEMPTS).fill(1), 0, 0]);
      await store.deliveries.expire(0, at);
      const [d] = (await store.deliveries.deliveries('operator', e.id, 1))!;
      assert.equal(d!.state, 'failed');
      await store.webhooks.removeEndpoint('operator', e.id);
    });

    it('a team may register LEADLINE_WEBHOOK_MAX_ENDPOINTS endpoints, then gets a 409 problem', async () => {
      const app = await buildApp({
        config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_MAX_ENDPOINTS: '2' }),
        store,
      });
      closers.push(() => app.close());
      const key = await keyFor(store, member(C));
      const before = (await store.webhooks.endpoints(C)).length;
      const add = () =>
        app.inject({
          method: 'POST',
          url: '/api/pub/v2/webhooks',
          headers: auth(key),
          payload: { url: 'http://127.0.0.1:9/cap' },
        });
      for (let i = before; i < 2; i++) assert.equal((await add()).statusCode, 201);
      const refused = await add();
      assert.equal(refused.statusCode, 409);
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      const problem = refused.json();
      assert.match(problem.type, /\/problems\/webhook-endpoint-limit$/);
      assert.equal(problem.limit, 2);
      assert.match(problem.detail, /LEADLINE_WEBHOOK_MAX_ENDPOINTS/);
      assert.equal((await store.webhooks.endpoints(C)).length, 2, 'nothing stored');
      // Side by side, the last place is taken once.
      const [last] = await store.webhooks.endpoints(C);
      await store.webhooks.removeEndpoint('operator', last!.id);
      const raced = await Promise.all([add(), add(), add()]);
      assert.deepEqual(raced.map((r) => r.statusCode).sort(), [201, 409, 409]);
      assert.equal((await store.webhooks.endpoints(C)).length, 2);
    });
  });
}
