import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import {
  createLeadline,
  type Lead,
  LeadlineError,
  type WebhookEndpoint,
} from '../../packages/client/src/index.js';
import { verifyWebhook, type WebhookEvent } from '../../packages/client/src/webhooks.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { updateLead } from '../../src/leads/update-lead.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually, makeApp } from '../support/helpers.js';
import { BERLIN, buildFixture, type Fixture } from '../v1/fixtures.js';

/**
 * @leadline/client's webhook endpoints (issue 39) against a listening leadline on each engine:
 * `webhooks.create/update` take the change events and `includePrevious`, `list/get/remove`
 * answer what the server holds, a member's key is a LeadlineError; and a receiver written with
 * `verifyWebhook` tells `lead.updated` and `lead.merged` apart by `type` and reads their typed data.
 */

const listen = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

/** A receiver as an integrator writes one with the client: verify, then keep the typed event. */
async function clientReceiver() {
  const events: WebhookEvent[] = [];
  const refused: string[] = [];
  let secret = '';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      try {
        events.push(verifyWebhook(secret, body, req.headers));
        res.writeHead(204).end();
      } catch (err) {
        refused.push((err as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    events,
    refused,
    useSecret: (s: string) => {
      secret = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

for (const engine of enginesUnderTest()) {
  describe(`@leadline/client webhooks against leadline (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    let base: string;
    let loop: DeliveryLoop;
    const admin = () => createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.teamAdmin) });
    const config = loadWebhookConfig({
      LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      LEADLINE_WEBHOOK_POLL_MS: '10',
    });

    before(async () => {
      fx = await buildFixture(engine);
      app = await makeApp(fx.store, { LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
      base = await listen(app);
      loop = new DeliveryLoop(fx.store, config, pino({ level: 'silent' }), new Sender(config, 8));
      loop.start();
    });
    after(async () => {
      await loop?.stop();
      await app?.close();
      await fx?.cleanup();
    });

    test('create, get, list, update and remove, with the change events and includePrevious', async () => {
      const client = admin();
      const created = await client.webhooks.create({
        url: 'http://127.0.0.1:9/crm',
        eventTypes: ['lead.updated', 'lead.merged'],
        includePrevious: true,
        description: 'CRM',
      });
      assert.match(created.secret ?? '', /^whsec_/);
      assert.deepEqual(
        [created.eventTypes, created.includePrevious],
        [['lead.updated', 'lead.merged'], true],
      );
      const { secret: _secret, ...shown } = created;
      assert.deepEqual(await client.webhooks.get(created.id), shown);
      assert.ok((await client.webhooks.list()).some((e) => e.id === created.id));

      const plain = await client.webhooks.create({ url: 'http://127.0.0.1:9/plain' });
      assert.deepEqual(
        [plain.eventTypes, plain.includePrevious],
        [['lead.created', 'webhook.endpoint.disabled'], false],
      );

      const updated: WebhookEndpoint = await client.webhooks.update(created.id, { includePrevious: false });
      assert.deepEqual(
        [updated.includePrevious, updated.eventTypes, updated.description],
        [false, ['lead.updated', 'lead.merged'], 'CRM'],
      );
      assert.equal((await client.webhooks.get(created.id)).includePrevious, false);

      await client.webhooks.remove(plain.id);
      await assert.rejects(client.webhooks.get(plain.id), (e: unknown) => {
        assert.ok(e instanceof LeadlineError);
        assert.equal(e.status, 404);
        return true;
      });
      await assert.rejects(
        client.webhooks.remove(plain.id),
        (e: unknown) => (e as LeadlineError).status === 404,
      );
      const member = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      await assert.rejects(member.webhooks.list(), (e: unknown) => (e as LeadlineError).status === 403);
      await client.webhooks.remove(created.id);
    });

    test('recover sends a failed delivery again; deliveries shows its attempts (issue 41)', async () => {
      const client = admin();
      const statuses = [410, 204];
      let got = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(statuses[got++] ?? 204).end());
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
        const since = new Date(Date.now() - 1_000);
        const endpoint = await client.webhooks.create({ url });
        await fx.store.deliveries.sendTest('operator', endpoint.id, Date.now());
        await eventually(async () => {
          const page = await client.webhooks.deliveries(endpoint.id, { state: 'failed' });
          assert.equal(page.deliveries.length, 1);
        });
        assert.equal((await client.webhooks.get(endpoint.id)).enabled, false, '410 disabled it');
        await client.webhooks.update(endpoint.id, { enabled: true });
        assert.equal(await client.webhooks.recover(endpoint.id, since), 1);
        const page = await eventually(async () => {
          const p = await client.webhooks.deliveries(endpoint.id, { state: 'delivered', limit: 10 });
          assert.equal(p.deliveries.length, 1);
          return p;
        });
        assert.deepEqual(
          page.deliveries[0]!.attempts.map((a) => a.status),
          [410, 204],
        );
        assert.equal(page.nextCursor, null);
        await assert.rejects(
          client.webhooks.recover(endpoint.id, new Date(Date.now() + 3_600_000)),
          (e: unknown) => (e as LeadlineError).status === 400,
        );
        await client.webhooks.remove(endpoint.id);
      } finally {
        await new Promise<void>((r) => server.close(() => r()));
      }
    });

    test('a receiver verifying with the client reads typed lead.updated and lead.merged events', async () => {
      const client = admin();
      const receiver = await clientReceiver();
      try {
        const endpoint = await client.webhooks.create({
          url: receiver.url,
          eventTypes: ['lead.updated', 'lead.merged'],
          includePrevious: true,
        });
        receiver.useSecret(endpoint.secret!);
        let found: Lead[] = [];
        for await (const page of client.leads.searchPages({
          filters: { assignedMemberIds: [BERLIN.member] },
          limit: 2,
        })) {
          found = page.leads;
          break;
        }
        const [survivor, other] = found;
        const by = { operator: { teamId: BERLIN.id } };
        await updateLead(fx.store, {
          by,
          leadId: survivor!.leadId,
          patch: { systemFields: { note: 'called back' } },
          source: 'api',
          now: Date.now(),
        });
        await mergeLeads(fx.store, {
          by,
          leadId: survivor!.leadId,
          mergeLeadIds: [other!.leadId],
          source: 'api',
          now: Date.now(),
        });
        await eventually(async () => {
          assert.ok(receiver.events.some((e) => e.type === 'lead.merged'));
          assert.ok(receiver.events.some((e) => e.type === 'lead.updated'));
        }, 10_000);
        assert.deepEqual(receiver.refused, []);
        let merged = 0;
        let noted = 0;
        for (const event of receiver.events) {
          // The union narrows on `type`: each branch reads its own typed data.
          switch (event.type) {
            case 'lead.updated': {
              assert.equal(event.data.leadId, survivor!.leadId);
              assert.equal(event.data.lead.leadId, survivor!.leadId);
              if (event.data.changedFields.includes('systemFields.note')) {
                noted++;
                assert.equal(event.data.changeSource, 'api');
                assert.equal(event.data.previous?.systemFields?.note, survivor!.systemFields.note);
              }
              break;
            }
            case 'lead.merged':
              merged++;
              assert.deepEqual(event.data, {
                leadId: other!.leadId,
                mergedInto: survivor!.leadId,
                changeSource: 'api',
              });
              break;
            default:
              assert.fail(`unexpected ${event.type}`);
          }
        }
        assert.deepEqual([noted, merged], [1, 1]);
        await client.webhooks.remove(endpoint.id);
      } finally {
        await receiver.close();
      }
    });
  });
}
