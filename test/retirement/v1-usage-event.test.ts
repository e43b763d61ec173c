import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { V1NoticeLoop } from '../../src/delivery/v1-notice-loop.js';
import { createKey } from '../../src/keys/create-key.js';
import { openStore } from '../../src/open-store.js';
import { type SendV1UsageResult, sendV1UsageNotices } from '../../src/retirement/send-v1-usage.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, load, testConfig } from '../support/helpers.js';
import { Receiver } from '../webhooks/receiver.js';

/**
 * Issue 42 §3, the `v1.usage` event: once a UTC day per team while its keys call v1 (reporting
 * the day before), never for a day after the calls stopped; exactly one per team and day with
 * two stores racing on one database; only to endpoints that list it; signed like every event
 * (verified with the client's verifier). Days are simulated with the app's clock and the use
 * case's `now`.
 */
const [A, B, C] = [4201, 4202, 4203];
const [ADMIN_A, ADMIN_B, ADMIN_C] = [42011, 42021, 42031];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const D0 = Date.parse('2026-11-02T00:00:00Z');
const SUNSET = '2027-03-01T00:00:00.000Z';
const GUIDE = 'https://leadline.test/docs/v1-migration';
const SETTLE = 10 * 60_000;
const BROWNOUT = D0 + 10 * DAY;

for (const engine of enginesUnderTest()) {
  describe(`the v1.usage event [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let other: Store;
    let app: FastifyInstance;
    let clock = D0 + 10 * HOUR;
    const keys: Record<string, { secret: string; id: number }> = {};
    const hooks: Record<string, { r: Receiver; id: string; secret: string }> = {};
    const receivers: Receiver[] = [];

    const send = (at: number, s: Store = store): Promise<SendV1UsageResult> =>
      sendV1UsageNotices(s, {
        now: at,
        times: { sunsetAt: Date.parse(SUNSET) },
        // One over; one ahead for a1 and a key of no team here; one ahead for B's key only.
        brownouts: [
          { id: 1, startsAt: D0 - DAY, endsAt: D0 - DAY + HOUR, keyIds: null, createdAt: D0 - 2 * DAY },
          {
            id: 3,
            startsAt: BROWNOUT,
            endsAt: BROWNOUT + HOUR,
            keyIds: [keys.a1!.id, 987654],
            createdAt: D0,
          },
          { id: 2, startsAt: D0 + 2 * HOUR, endsAt: D0 + 20 * DAY, keyIds: [keys.b1!.id], createdAt: D0 },
        ],
        migrationGuide: GUIDE,
        settleMs: SETTLE,
      });
    /** v1 calls at `clock`, by key name, then waits until the ledger holds them. */
    async function calls(list: [string, string, number][]): Promise<void> {
      let total = 0;
      for (const [key, op, n] of list) {
        for (let i = 0; i < n; i++) {
          const res = await app.inject({ url: `/api/pub/leads/${op}`, headers: auth(keys[key]!.secret) });
          assert.ok(res.statusCode < 500, res.body);
        }
        total += n;
      }
      const day = new Date(clock).toISOString().slice(0, 10);
      await eventually(async () => {
        const rows = await store.retirement.v1UsageBetween(day, day);
        assert.equal(
          rows.reduce((s, r) => s + r.count, 0),
          total,
        );
      });
    }
    async function hook(key: string, eventTypes: string[], enabled = true) {
      const r = await Receiver.start();
      receivers.push(r);
      const res = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/webhooks',
        headers: auth(keys[key]!.secret),
        payload: { url: r.url, eventTypes },
      });
      assert.equal(res.statusCode, 201, res.body);
      const { id, secret } = res.json().data;
      r.secrets = [secret];
      if (!enabled) {
        const off = await app.inject({
          method: 'PATCH',
          url: `/api/pub/v2/webhooks/${id}`,
          headers: auth(keys[key]!.secret),
          payload: { enabled: false },
        });
        assert.equal(off.statusCode, 200, off.body);
      }
      return { r, id, secret };
    }
    /** The v1.usage deliveries stored for an endpoint, oldest first. */
    const usageDeliveries = async (endpoint: string) =>
      ((await store.deliveries.deliveries('operator', endpoint, 100)) ?? [])
        .filter((d) => d.type === 'v1.usage')
        .reverse();

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      other = await openStore(made.location);
      await load(store, [
        { type: 'team', id: A, name: 'Alpha' },
        { type: 'team', id: B, name: 'Beta' },
        { type: 'team', id: C, name: 'Gamma' },
        { type: 'member', id: ADMIN_A, teamId: A, email: 'ann@alpha.test', role: 'admin', pid: 'a' },
        { type: 'member', id: ADMIN_B, teamId: B, email: 'bob@beta.test', role: 'admin', pid: 'b' },
        { type: 'member', id: ADMIN_C, teamId: C, email: 'cy@gamma.test', role: 'admin', pid: 'c' },
      ]);
      app = await buildApp({
        config: testConfig({
          LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
          LEADLINE_USAGE_FLUSH_MS: '100',
          LEADLINE_V1_SUNSET_AT: SUNSET,
        }),
        store,
        now: () => clock,
      });
      for (const [name, member] of [
        ['a1', ADMIN_A],
        ['a2', ADMIN_A],
        ['b1', ADMIN_B],
        ['c1', ADMIN_C],
      ] as const) {
        const made = await createKey(store, { member, legacyV1: true, label: `${name} sync` });
        keys[name] = { secret: made.key, id: made.id };
      }
      hooks.a = await hook('a1', ['v1.usage']);
      hooks.aLeads = await hook('a1', ['lead.created']);
      hooks.aOff = await hook('a1', ['v1.usage'], false);
      hooks.b = await hook('b1', ['lead.created', 'v1.usage']);
    });
    after(async () => {
      for (const r of receivers) await r.close();
      await app.close();
      await other.close();
      await made.cleanup();
    });

    it('reports a day once it is over and settled, to the endpoints that list v1.usage only', async () => {
      await calls([
        ['a1', 'getLastLead', 2],
        ['a1', 'getLastLeadTeam', 1],
        ['b1', 'getLastLead', 1],
        ['c1', 'getLastLead', 3],
      ]);
      const sameDay = await send(D0 + 23 * HOUR);
      assert.deepEqual(sameDay.sent, [], 'the day of the calls is not over: nothing to report');
      assert.equal((await send(D0 + DAY + SETTLE - 1)).day, null, 'not settled yet');
      const first = await send(D0 + DAY + SETTLE);
      assert.equal(first.day, '2026-11-02');
      assert.deepEqual(first.sent, [
        { teamId: A, deliveries: 1 },
        { teamId: B, deliveries: 1 },
      ]);
      assert.deepEqual(first.noEndpoint, [C], 'a team without a v1.usage endpoint: the CLI’s');
      assert.equal((await usageDeliveries(hooks.a!.id)).length, 1);
      assert.equal((await usageDeliveries(hooks.aLeads!.id)).length, 0, 'not listed');
      assert.equal((await usageDeliveries(hooks.aOff!.id)).length, 0, 'disabled');
      const again = await send(D0 + DAY + 5 * HOUR);
      assert.deepEqual(again.sent, []);
      assert.deepEqual(
        again.sentBefore,
        [A, B, C],
        'once per team and day, however often asked — logged for C too, without an endpoint',
      );
      assert.equal((await usageDeliveries(hooks.a!.id)).length, 1);
    });

    it('is signed like every event and carries the keys, their calls, the sunset — no personal data', async () => {
      const loop = new DeliveryLoop(
        store,
        loadWebhookConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_POLL_MS: '10' }),
        pino({ level: 'silent' }),
      );
      loop.start();
      try {
        await eventually(async () => assert.equal(hooks.a!.r.received.length, 1));
      } finally {
        await loop.stop();
      }
      const got = hooks.a!.r.received[0]!;
      const headers = {
        'webhook-id': got.id,
        'webhook-timestamp': got.timestamp,
        'webhook-signature': got.signature,
      };
      const event = verifyWebhook(hooks.a!.secret, got.body, headers);
      assert.equal(event.type, 'v1.usage');
      assert.throws(() => verifyWebhook(hooks.b!.secret, got.body, headers), 'another endpoint’s secret');
      const a1 = keys.a1!;
      const data = (event as { data: Record<string, unknown> }).data;
      assert.deepEqual(
        {
          ...data,
          keys: (data.keys as { calls: unknown[] }[]).map((k) => ({ ...k, calls: k.calls.length })),
        },
        {
          day: '2026-11-02',
          keys: [
            { keyId: a1.id, prefix: a1.secret.slice(0, 12), label: 'a1 sync', memberId: ADMIN_A, calls: 2 },
          ],
          nextBrownout: {
            startsAt: new Date(BROWNOUT).toISOString(),
            endsAt: new Date(BROWNOUT + HOUR).toISOString(),
            keyIds: [a1.id],
          },
          sunsetAt: SUNSET,
          migrationGuide: GUIDE,
        },
      );
      const calls = (data.keys as { calls: { operation: string; count: number; successor: unknown }[] }[])[0]!
        .calls;
      assert.deepEqual(
        calls.map((c) => [c.operation, c.count]),
        [
          ['getLastLead', 2],
          ['getLastLeadTeam', 1],
        ],
      );
      assert.deepEqual((calls[1]!.successor as { body: unknown }).body, {
        filters: { teamId: A },
        sort: { field: 'timestamp', direction: 'DESC' },
        limit: 1,
      });
      for (const personal of ['ann@alpha.test', 'Alpha', a1.secret])
        assert.ok(!got.body.includes(personal), personal);
    });

    it('comes daily while a team calls v1, and never for a day after its calls stopped', async () => {
      clock = D0 + DAY + 9 * HOUR;
      await calls([['b1', 'getLastLeadTeam', 4]]); // team A has stopped
      const d2 = await send(D0 + 2 * DAY + HOUR);
      assert.equal(d2.day, '2026-11-03');
      assert.deepEqual(d2.sent, [{ teamId: B, deliveries: 1 }]);
      assert.deepEqual(d2.sentBefore, []);
      const d3 = await send(D0 + 3 * DAY + HOUR);
      assert.deepEqual([d3.sent, d3.sentBefore, d3.noEndpoint], [[], [], []], 'no calls on the 4th');
      assert.equal((await usageDeliveries(hooks.a!.id)).length, 1, 'A: the 2nd only');
      assert.deepEqual(
        (await usageDeliveries(hooks.b!.id)).map((d) => d.createdAt),
        [D0 + DAY + SETTLE, D0 + 2 * DAY + HOUR],
        'B: the 2nd and the 3rd',
      );
    });

    it('two stores racing on one database write exactly one notice per team and day', async () => {
      clock = D0 + 4 * DAY + 9 * HOUR;
      await calls([
        ['a2', 'getLeadsTimeRange', 1],
        ['b1', 'getLastLead', 1],
      ]);
      const at = D0 + 5 * DAY + HOUR;
      const results = await Promise.all([send(at), send(at, other), send(at, other), send(at)]);
      for (const team of [A, B]) {
        const writers = results.filter((r) => r.sent.some((s) => s.teamId === team)).length;
        const losers = results.filter((r) => r.sentBefore.includes(team)).length;
        assert.deepEqual([writers, losers], [1, 3], `team ${team}`);
      }
      for (const endpoint of [hooks.a!.id, hooks.b!.id]) {
        const times = (await usageDeliveries(endpoint)).map((d) => d.createdAt);
        assert.equal(times.filter((t) => t === at).length, 1, times.join());
      }
    });

    it('leadline serve’s loop writes them: a look after the day settled, once however many looks', async () => {
      clock = D0 + 6 * DAY + 9 * HOUR;
      await calls([['a1', 'getLastLead', 1]]);
      const before = (await usageDeliveries(hooks.a!.id)).length;
      const config = testConfig({ LEADLINE_V1_SUNSET_AT: SUNSET, LEADLINE_USAGE_FLUSH_MS: '100' });
      let at = D0 + 7 * DAY + 60_000; // within the 5 minutes the loop leaves the ledger
      const loops = [1, 2].map(() => new V1NoticeLoop(store, config, pino({ level: 'silent' }), () => at));
      await loops[0]!.tick();
      assert.equal((await usageDeliveries(hooks.a!.id)).length, before, 'not yet');
      at = D0 + 7 * DAY + HOUR;
      await Promise.all(loops.map((l) => l.tick()));
      const times = (await usageDeliveries(hooks.a!.id)).map((d) => d.createdAt);
      assert.deepEqual(times.slice(before), [at], 'the 8th, once');
      for (const l of loops) await l.stop();
    });
  });
}
