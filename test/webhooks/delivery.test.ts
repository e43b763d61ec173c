import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { Receiver } from './receiver.js';

/**
 * Issue 13 §2, §4, §5, §6 against real receivers on loopback: every delivery's signature is
 * verified with the standardwebhooks library; retries, 410, replay, rotation, test events,
 * refusals at delivery time, retention. The loop runs in process with a clock the test moves.
 */
const PATH = '/api/pub/v2/webhooks';
const TEAM = 1501;
const ADMIN = 15011;
const DAY = 86_400_000;

let leadNo = 0;
const lead = (extra: object = {}) => ({
  type: 'lead',
  userId: ADMIN,
  id: `d-${++leadNo}`,
  epoch: 1_750_000_000_000 + leadNo,
  isLead: true,
  name: `Delivered ${leadNo}`,
  ...extra,
});

for (const engine of enginesUnderTest()) {
  describe(`webhook delivery [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let loop: DeliveryLoop;
    let offset = 0;
    const now = () => Date.now() + offset;
    const config = loadWebhookConfig({
      LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      LEADLINE_WEBHOOK_POLL_MS: '10',
    });
    const receivers: Receiver[] = [];

    /** A receiver and an endpoint pointing at it; the receiver verifies with the endpoint's secret. */
    async function hooked(body: object = {}): Promise<{ r: Receiver; id: string; secret: string }> {
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
      return { r, id, secret };
    }
    const remove = async (id: string) =>
      app.inject({ method: 'DELETE', url: `${PATH}/${id}`, headers: auth(key) });

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Delivered' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@delivered.test', role: 'admin', pid: 'p' },
      ]);
      app = await buildApp({ config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }), store });
      key = await keyFor(store, ADMIN);
      loop = new DeliveryLoop(
        store,
        config,
        pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2)),
        new Sender(config, 16),
        now,
      );
      loop.start();
    });
    after(async () => {
      await loop.stop();
      for (const r of receivers) await r.close();
      await app.close();
      await made.cleanup();
    });

    it('delivers each new lead once, signed, its body the lead as GET returns it', async () => {
      const { r, id } = await hooked();
      await load(store, [
        lead({ lat: '52.52', long: '13.40', locationShared: true }),
        lead({ lat: '1', long: '2' }),
      ]);
      await eventually(async () => assert.equal(r.received.length, 2), 10_000);
      assert.deepEqual(r.forged, []);
      for (const got of r.received) {
        assert.equal(got.payload.type, 'lead.created');
        const res = await app.inject({
          url: `/api/pub/v2/leads/${got.payload.data.leadId}`,
          headers: auth(key),
        });
        assert.deepEqual(got.payload.data, res.json().data);
      }
      const [withConsent, without] = r.received.map((x) => x.payload.data.systemFields.location);
      assert.deepEqual([withConsent.latitude, withConsent.longitude], [52.52, 13.4]);
      assert.equal(without, null, 'no coordinates without consent');
      // The receiver answers before the attempt is recorded: wait for the records.
      const deliveries = await eventually(async () => {
        const d = await store.deliveries.deliveries({ teamId: TEAM }, id, 10);
        assert.ok(d?.every((x) => x.state === 'delivered'));
        return d;
      });
      assert.deepEqual(
        deliveries?.map((d) => [d.state, d.attempts.length, d.attempts[0]?.status]),
        [
          ['delivered', 1, 200],
          ['delivered', 1, 200],
        ],
      );
      assert.deepEqual(new Set(deliveries?.map((d) => d.eventId)), r.ids());
      assert.equal(deliveries?.[0]?.attempts[0]?.answer, 'ok');
      await remove(id);
    });

    it('retries a receiver that is down, with the same webhook-id, until it is up again', async () => {
      const { r, id } = await hooked();
      await r.down();
      await load(store, [lead()]);
      let records = await eventually(async () => {
        const d = await store.deliveries.deliveries('operator', id, 10);
        assert.equal(d?.[0]?.attempts.length, 1);
        return d!;
      });
      assert.equal(records[0]!.attempts[0]!.status, null);
      assert.equal(records[0]!.attempts[0]!.answer, 'no answer: connection refused');
      // Answers 503 once when back up, then accepts.
      await r.listen();
      r.answer = (_x, nth) => (nth === 1 ? 503 : 200);
      offset += 7_000; // past the first retry (5 s ± 20 %)
      await eventually(async () => assert.equal(r.received.length, 1));
      await eventually(async () => {
        const d = await store.deliveries.deliveries('operator', id, 1);
        assert.equal(d?.[0]?.attempts.length, 2);
      });
      offset += 7 * 60_000; // past the second (5 min ± 20 %)
      await eventually(async () => assert.equal(r.received.length, 2), 5_000).catch(async (err) => {
        console.error(JSON.stringify(await store.deliveries.deliveries('operator', id, 1)), now());
        throw err;
      });
      assert.equal(r.received[0]!.id, r.received[1]!.id, 'the same webhook-id on every attempt');
      // Recorded with the next batch, shortly after the receiver answered.
      records = await eventually(async () => {
        const d = (await store.deliveries.deliveries('operator', id, 10))!;
        assert.equal(d[0]!.attempts.length, 3);
        return d;
      });
      assert.deepEqual(
        records[0]!.attempts.map((a) => a.status),
        [null, 503, 200],
      );
      assert.equal(records[0]!.state, 'delivered');
      await remove(id);
    });

    it('410 Gone disables the endpoint and says why; nothing more is sent to it', async () => {
      const { r, id } = await hooked();
      r.answer = () => 410;
      await load(store, [lead()]);
      const endpoint = await eventually(async () => {
        const e = await store.webhooks.endpoint('operator', id);
        assert.equal(e?.enabled, false);
        return e!;
      });
      assert.equal(endpoint.disabledReason, 'the endpoint answered 410 Gone');
      await load(store, [lead()]);
      offset += DAY;
      await new Promise((done) => setTimeout(done, 200));
      assert.equal(r.received.length, 1);
      await remove(id);
    });

    it('an endpoint failing without a break for the configured time is disabled', async () => {
      const { r, id } = await hooked();
      r.answer = () => 500;
      await load(store, [lead()]);
      await eventually(async () => assert.equal(r.received.length, 1));
      for (let i = 2; i <= 6; i++) {
        offset += 11 * 3_600_000; // past every retry of the schedule in turn
        await eventually(async () => assert.equal(r.received.length, i));
      }
      offset += 4 * DAY;
      await load(store, [lead()]);
      const e = await eventually(async () => {
        const got = await store.webhooks.endpoint('operator', id);
        assert.equal(got?.enabled, false);
        return got!;
      });
      assert.equal(e.disabledReason, 'every attempt failed for 5 days');
      await remove(id);
    });

    it('replays a delivery, and every failed one since a time, with the same webhook-id', async () => {
      const { r, id } = await hooked();
      await load(store, [lead()]);
      const [d] = await eventually(async () => {
        const got = (await store.deliveries.deliveries('operator', id, 1))!;
        assert.equal(got[0]?.state, 'delivered');
        return got;
      });
      assert.equal(
        await store.deliveries.replay({ teamId: TEAM + 1 }, d!.id, now()),
        false,
        "another team's",
      );
      assert.equal(await store.deliveries.replay({ teamId: TEAM }, d!.id, now()), true);
      await eventually(async () => assert.equal(r.received.length, 2));
      assert.equal(r.received[1]!.id, r.received[0]!.id);

      r.answer = () => 500;
      const since = Date.now(); // events carry the time their lead was stored
      await load(store, [lead(), lead()]);
      const newest = async () =>
        (await store.deliveries.deliveries('operator', id, 2))!.filter((x) => x.id > d!.id);
      // Through the schedule: each jump makes the next retry due (or disables the endpoint, failing 5 days).
      for (let i = 0; i < 60; i++) {
        const two = await newest();
        if (two.length === 2 && two.every((x) => x.state === 'failed')) break;
        offset += 13 * 3_600_000;
        await new Promise((done) => setTimeout(done, 50));
      }
      const failed = await newest();
      assert.deepEqual(
        failed.map((x) => x.state),
        ['failed', 'failed'],
      );
      assert.ok(failed.every((x) => x.attempts.length >= 2 && x.attempts.every((a) => a.status === 500)));
      await app.inject({
        method: 'PATCH',
        url: `${PATH}/${id}`,
        headers: auth(key),
        payload: { enabled: true },
      });
      r.answer = () => 200;
      const before = r.received.length;
      assert.equal(await store.deliveries.replayFailed('operator', id, since, now()), 2);
      await eventually(async () => assert.equal(r.received.length, before + 2));
      await remove(id);
    });

    it('a rotated-out secret keeps signing beside the new one for the grace period', async () => {
      offset = 0; // the API's clock and the loop's agree again: the grace period is measured by both
      const { r, id, secret } = await hooked();
      const res = await app.inject({
        method: 'POST',
        url: `${PATH}/${id}/rotate-secret`,
        headers: auth(key),
      });
      const fresh = res.json().data.secret as string;
      r.secrets = [secret, fresh]; // the receiver checks each: both must verify
      await load(store, [lead()]);
      await eventually(async () => assert.equal(r.received.length, 1));
      assert.equal(r.received[0]!.signature.split(' ').length, 2);
      offset += 25 * 3_600_000;
      r.secrets = [fresh];
      await load(store, [lead()]);
      await eventually(async () => assert.equal(r.received.length, 2));
      assert.equal(r.received[1]!.signature.split(' ').length, 1, 'after the grace period, the new one only');
      assert.deepEqual(r.forged, []);
      await remove(id);
    });

    it('sends a test event to one endpoint', async () => {
      const { r, id } = await hooked();
      const res = await app.inject({ method: 'POST', url: `${PATH}/${id}/test`, headers: auth(key) });
      assert.equal(res.statusCode, 202, res.body);
      const eventId = res.json().data.webhookId;
      assert.equal(await store.deliveries.sendTest({ teamId: TEAM + 1 }, id, now()), null, "another team's");
      await eventually(async () => assert.equal(r.received.length, 1));
      assert.equal(r.received[0]!.id, eventId);
      assert.deepEqual(r.received[0]!.payload.data, { endpointId: id });
      assert.equal(r.received[0]!.payload.type, 'webhook.test');
      await remove(id);
    });

    it('refuses at delivery time what the policy forbids, on the address it would connect to', async () => {
      const { r, id } = await hooked();
      const strict = loadWebhookConfig({});
      // A name that resolved to a public address at registration and to loopback now (rebinding).
      const rebind = new Sender(strict, 4, ((_h: string, _o: unknown, done: (e: null, a: unknown) => void) =>
        done(null, [{ address: '127.0.0.1', family: 4 }])) as never);
      const base = {
        id: 1,
        eventId: 'e',
        endpointId: id,
        teamId: TEAM,
        payload: '{}',
        attempt: 1,
        failingSince: null,
      };
      const secrets = {
        current: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        previous: null,
        previousUntil: null,
      };
      const https = r.url.replace('http:', 'https:');
      for (const url of [
        https,
        'https://10.0.0.1/x',
        'https://169.254.169.254/latest',
        'https://[::1]:9/x',
        'https://[::7f00:1]:9/x',
        'https://[::127.0.0.1]:9/x',
        'https://[fec0::1]:9/x',
        'https://[::ffff:127.0.0.1]:9/x',
        'https://[64:ff9b::10.0.0.1]:9/x',
      ]) {
        const got = await new Sender(strict, 4).send({ ...base, url, secrets }, [secrets.current]);
        assert.equal(got.status, null, url);
        assert.match(got.answer, /^refused: .*not a public address/, url);
      }
      // Issue 36: the URL's rules are checked again on every attempt — an http endpoint saved
      // while private targets were allowed is not posted to once they are not.
      const plain = await new Sender(strict, 4).send({ ...base, url: r.url, secrets }, [secrets.current]);
      assert.deepEqual(
        [plain.status, plain.answer],
        [
          null,
          'refused: the URL must be https; http is allowed only with LEADLINE_WEBHOOK_ALLOW_PRIVATE=true (receivers on your own network)',
        ],
      );
      const named = await rebind.send({ ...base, url: `https://rebound.test:${r.port}/hooks`, secrets }, [
        secrets.current,
      ]);
      assert.match(named.answer, /^refused: .*127\.0\.0\.1.*not a public address/);
      // A name whose every address is an IPv6 form of a private one, or outside global unicast.
      for (const [address, shown] of [
        ['::7f00:1', /::7f00:1 \(127\.0\.0\.1\)/],
        ['fec0::1', /fec0::1/],
        ['::ffff:10.0.0.1', /10\.0\.0\.1/],
        ['64:ff9b::a00:1', /10\.0\.0\.1/],
      ] as const) {
        const v6 = new Sender(strict, 4, ((_h: string, _o: unknown, done: (e: null, a: unknown) => void) =>
          done(null, [{ address, family: 6 }])) as never);
        const got = await v6.send({ ...base, url: `https://rebound.test:${r.port}/hooks`, secrets }, [
          secrets.current,
        ]);
        v6.close();
        assert.equal(got.status, null, address);
        assert.match(got.answer, /^refused: .*not a public address/, address);
        assert.match(got.answer, shown, address);
      }
      // LEADLINE_WEBHOOK_PORTS holds on every attempt: an endpoint saved before it was set is not posted to.
      const ported = new Sender(
        loadWebhookConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_PORTS: '443' }),
        4,
      );
      const off = await ported.send({ ...base, url: r.url, secrets }, [secrets.current]);
      ported.close();
      assert.deepEqual(
        [off.status, off.answer],
        [
          null,
          `refused: the URL port ${r.port} is not allowed: webhooks go to port 443 only (LEADLINE_WEBHOOK_PORTS)`,
        ],
      );
      assert.equal(r.received.length, 0, 'nothing reached the receiver');
      rebind.close();
      await remove(id);
    });

    it('drops deliveries undelivered past the retention, keeping a record', async () => {
      const { r, id } = await hooked();
      r.answer = () => 500;
      await load(store, [lead()]);
      await eventually(async () => assert.equal(r.received.length, 1));
      const dropped = await store.deliveries.expire(now() + 1, now());
      assert.ok(dropped >= 1);
      const [d] = (await store.deliveries.deliveries('operator', id, 1))!;
      assert.equal(d!.state, 'dropped');
      assert.deepEqual(d!.attempts, []);
      assert.equal(await store.deliveries.replay('operator', d!.id, now()), false, 'nothing left to send');
      await remove(id);
    });
  });
}
