import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, keyFor, load } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { Receiver } from '../webhooks/receiver.js';
import { METRICS_TOKEN, parseExposition, sampleSum } from './scrape.js';

/**
 * Webhook metrics (issue 17 §1, with issue 13's delivery): `leadline serve` delivers to a
 * receiver that answers 200 and to one that answers 500; a scrape counts the attempts by
 * outcome, times them, and shows the backlog while the failing endpoint's deliveries wait, gone
 * once that endpoint is removed.
 */
const TEAM = 1701;
const ADMIN = 17011;
let n = 0;
const lead = () => ({
  type: 'lead',
  userId: ADMIN,
  id: `m-${++n}`,
  epoch: 1_760_000_000_000 + n,
  isLead: true,
});

for (const engine of enginesUnderTest()) {
  describe(`webhook metrics (${engine})`, () => {
    let made: EngineStore;
    let server: ServerProcess;
    let key: string;
    const receivers: Receiver[] = [];
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Metrics' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@metrics.test', role: 'admin', pid: 'p' },
      ]);
      key = await keyFor(made.store, ADMIN);
      server = await startServerProcess(storeArgs(made.location), {
        LEADLINE_METRICS_TOKEN: METRICS_TOKEN,
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '20',
      });
    });
    after(async () => {
      await stopAll();
      for (const r of receivers) await r.close();
      await made.cleanup();
    });

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/pub/v2/webhooks${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${key}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      });
    const scrape = async () => {
      const r = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(r.status, 200);
      return parseExposition(await r.text());
    };
    const endpoint = async (r: Receiver): Promise<string> => {
      const res = await api('', { method: 'POST', body: JSON.stringify({ url: r.url }) });
      assert.equal(res.status, 201, await res.clone().text());
      const { id, secret } = ((await res.json()) as { data: { id: string; secret: string } }).data;
      r.secrets = [secret];
      return id;
    };

    test('attempts by outcome and their time; the backlog while deliveries wait, and after', async () => {
      const ok = await Receiver.start();
      const failing = await Receiver.start();
      receivers.push(ok, failing);
      failing.answer = () => 500;
      await endpoint(ok);
      const failingId = await endpoint(failing);
      await load(made.store, [lead(), lead(), lead()], 'metrics.ndjson');
      await eventually(async () => {
        assert.equal(ok.received.length, 3);
        assert.ok(failing.received.length >= 3);
      });
      let s = await scrape();
      // An answer arrives before the loop records it: the figures settle a moment later.
      await eventually(async () => {
        s = await scrape();
        assert.equal(sampleSum(s, 'leadline_webhook_deliveries_total', { outcome: 'delivered' }), 3);
        assert.ok(sampleSum(s, 'leadline_webhook_deliveries_total', { outcome: 'retry' }) >= 3);
        assert.equal(
          sampleSum(s, 'leadline_webhook_delivery_duration_seconds_count', { outcome: 'delivered' }),
          3,
        );
        assert.ok(
          sampleSum(s, 'leadline_webhook_delivery_duration_seconds_sum', { outcome: 'delivered' }) > 0,
        );
        // The failing endpoint's three deliveries wait for their retries.
        assert.equal(sampleSum(s, 'leadline_webhook_outbox_depth', { stage: 'pending' }), 3);
        assert.ok(sampleSum(s, 'leadline_webhook_outbox_oldest_pending_age_seconds') > 0);
      });
      const removed = await api(`/${failingId}`, { method: 'DELETE' });
      assert.equal(removed.status, 204);
      await eventually(async () => {
        s = await scrape();
        assert.equal(sampleSum(s, 'leadline_webhook_outbox_depth', { stage: 'pending' }), 0);
        assert.equal(sampleSum(s, 'leadline_webhook_outbox_depth', { stage: 'undispatched' }), 0);
        assert.equal(sampleSum(s, 'leadline_webhook_outbox_oldest_pending_age_seconds'), 0);
      });
    });

    test('an endpoint leadline disables is counted once by reason, and the team told (issue 41)', async () => {
      const gone = await Receiver.start();
      const told = await Receiver.start();
      receivers.push(gone, told);
      gone.answer = () => 410;
      const goneId = await endpoint(gone);
      await endpoint(told);
      await load(made.store, [lead(), lead()], 'metrics-gone.ndjson');
      await eventually(async () => {
        const notice = told.received.find((r) => r.payload.type === 'webhook.endpoint.disabled');
        assert.equal(notice?.payload.data.endpointId, goneId);
      });
      await eventually(async () => {
        const s = await scrape();
        assert.equal(sampleSum(s, 'leadline_webhook_endpoints_disabled_total', { reason: 'gone' }), 1);
        assert.equal(sampleSum(s, 'leadline_webhook_endpoints_disabled_total', { reason: 'failing' }), 0);
      });
    });
  });
}
