import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Compile } from 'typebox/compile';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import type { StoredLead } from '../../src/leads/lead.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { updateLead } from '../../src/leads/update-lead.js';
import { LeadMergedEvent, LeadUpdatedEvent } from '../../src/schemas/webhooks.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { leadRecords } from '../support/lead-records.js';
import { Receiver } from './receiver.js';

/**
 * Issue 39, webhooks over HTTP: a team admin registers an endpoint for `lead.updated` and
 * `lead.merged` with `includePrevious` through POST /api/pub/v2/webhooks and changes it with
 * PATCH; an endpoint registered without `eventTypes` keeps taking `lead.created` only. Changes
 * made through updateLead/mergeLeads reach real receivers on loopback, signed, with `previous`
 * exactly while the endpoint has includePrevious on, and each body is what the OpenAPI
 * document's LeadUpdatedEvent / LeadMergedEvent say (docs/webhooks.md "lead.updated and lead.merged").
 */
const PATH = '/api/pub/v2/webhooks';
const TEAM = 3971;
const ADMIN = 39711;
const MEMBER = 39712;
const CHANGES = ['lead.updated', 'lead.merged'];

const record = leadRecords('wa-', 1_750_000_000_000);
const leadRecord = (more: object) => record(ADMIN, { ...more });

const updatedShape = Compile(LeadUpdatedEvent);
const mergedShape = Compile(LeadMergedEvent);
const conforms = (check: typeof updatedShape | typeof mergedShape, body: unknown) =>
  assert.ok(check.Check(body), JSON.stringify([...check.Errors(body)].slice(0, 3)));

for (const engine of enginesUnderTest()) {
  describe(`lead.updated and lead.merged endpoints over the API [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let memberKey: string;
    let loop: DeliveryLoop;
    let leads: StoredLead[] = [];
    const receivers: Receiver[] = [];
    const by = { operator: { teamId: TEAM } };
    const config = loadWebhookConfig({
      LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      LEADLINE_WEBHOOK_POLL_MS: '10',
    });

    const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, as = key) =>
      app.inject({ method, url, headers: auth(as), ...(payload === undefined ? {} : { payload }) });

    /** A receiver, and an endpoint registered for it through the API with `body`. */
    async function hooked(body: object): Promise<{ r: Receiver; data: Record<string, unknown> }> {
      const r = await Receiver.start();
      receivers.push(r);
      const res = await call('POST', PATH, { url: r.url, ...body });
      assert.equal(res.statusCode, 201, res.body);
      const { data } = res.json();
      r.secrets = [data.secret];
      return { r, data };
    }

    /** The types of the deliveries the store planned for an endpoint, oldest first. */
    const planned = async (endpointId: string) =>
      ((await store.deliveries.deliveries({ teamId: TEAM }, endpointId, 50)) ?? [])
        .map((d) => d.type)
        .reverse();

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Changes' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@changes.test', role: 'admin', pid: 'pa' },
        { type: 'member', id: MEMBER, teamId: TEAM, email: 'm@changes.test', role: 'member', pid: 'pm' },
      ]);
      app = await buildApp({ config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }), store });
      key = await keyFor(store, ADMIN);
      memberKey = await keyFor(store, MEMBER);
      loop = new DeliveryLoop(
        store,
        config,
        pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2)),
        new Sender(config, 16),
      );
      loop.start();
    });
    after(async () => {
      await loop.stop();
      for (const r of receivers) await r.close();
      await app.close();
      await made.cleanup();
    });

    it('registers lead.updated and lead.merged with includePrevious; the default stays lead.created alone', async () => {
      const res = await call('POST', PATH, {
        url: 'http://127.0.0.1:9/changes',
        eventTypes: CHANGES,
        includePrevious: true,
      });
      assert.equal(res.statusCode, 201, res.body);
      const { secret: _secret, ...data } = res.json().data;
      assert.deepEqual([data.eventTypes, data.includePrevious], [CHANGES, true]);
      assert.deepEqual((await call('GET', `${PATH}/${data.id}`)).json().data, data);
      const listed = (await call('GET', PATH)).json().data.endpoints;
      assert.deepEqual(
        listed.find((e: { id: string }) => e.id === data.id),
        data,
      );
      const stored = await store.webhooks.endpoint({ teamId: TEAM }, data.id);
      assert.deepEqual([stored?.eventTypes, stored?.includePrevious], [CHANGES, true]);

      const plain = (await call('POST', PATH, { url: 'http://127.0.0.1:9/plain' })).json().data;
      assert.deepEqual(
        [plain.eventTypes, plain.includePrevious],
        [['lead.created', 'webhook.endpoint.disabled'], false],
      );

      for (const body of [
        { eventTypes: ['lead.deleted'] },
        { eventTypes: ['lead.updated', 'lead.updated'] },
        { includePrevious: 'yes' },
        { includePrevious: null },
      ]) {
        const refused = await call('POST', PATH, { url: 'http://127.0.0.1:9/x', ...body });
        assert.equal(refused.statusCode, 400, `${JSON.stringify(body)}: ${refused.body}`);
        const name = Object.keys(body)[0];
        assert.ok(
          refused.json().invalid_params.some((p: { name: string }) => p.name.startsWith(`/${name}`)),
          refused.body,
        );
        const patched = await call('PATCH', `${PATH}/${data.id}`, body);
        assert.equal(patched.statusCode, 400, `PATCH ${JSON.stringify(body)}: ${patched.body}`);
      }
      const byMember = await call(
        'POST',
        PATH,
        { url: 'http://127.0.0.1:9/m', eventTypes: CHANGES, includePrevious: true },
        memberKey,
      );
      assert.equal(byMember.statusCode, 403);
    });

    it('PATCH changes includePrevious and the event types, and leaves the rest', async () => {
      const { data } = await hooked({ eventTypes: ['lead.updated'], description: 'CRM' });
      assert.equal(data.includePrevious, false);
      const on = await call('PATCH', `${PATH}/${data.id}`, { includePrevious: true });
      assert.equal(on.statusCode, 200, on.body);
      assert.deepEqual(
        [on.json().data.includePrevious, on.json().data.eventTypes, on.json().data.description],
        [true, ['lead.updated'], 'CRM'],
      );
      assert.equal((await store.webhooks.endpoint({ teamId: TEAM }, String(data.id)))?.includePrevious, true);
      const types = await call('PATCH', `${PATH}/${data.id}`, { eventTypes: ['lead.created', ...CHANGES] });
      assert.deepEqual(
        [types.json().data.includePrevious, types.json().data.eventTypes],
        [true, ['lead.created', ...CHANGES]],
        'includePrevious stays when absent',
      );
      const off = await call('PATCH', `${PATH}/${data.id}`, { includePrevious: false, enabled: false });
      assert.deepEqual([off.json().data.includePrevious, off.json().data.enabled], [false, false]);
      const got = (await call('GET', `${PATH}/${data.id}`)).json().data;
      assert.deepEqual([got.includePrevious, got.enabled], [false, false]);
      assert.equal(
        (await store.webhooks.endpoint({ teamId: TEAM }, String(data.id)))?.includePrevious,
        false,
      );
    });

    it('delivers lead.updated with previous only while includePrevious is on, and lead.merged', async () => {
      const withPrevious = await hooked({ eventTypes: CHANGES, includePrevious: true });
      const without = await hooked({ eventTypes: CHANGES });
      const createdOnly = await hooked({});
      await load(store, [
        leadRecord({ name: 'Uma Alt', email: 'uma@old.test', jobTitle: 'Buyer' }),
        leadRecord({ email: 'uma@old.test', company: 'Acme' }),
      ]);
      leads = [];
      for await (const b of store.leads.scan({ teamId: TEAM }, 10)) leads.push(...b);
      leads.sort((a, b) => a.epoch - b.epoch);
      await eventually(async () => assert.equal(createdOnly.r.received.length, 2), 10_000);
      assert.equal(withPrevious.r.received.length, 0, 'no lead.created to an endpoint that did not list it');

      await updateLead(store, {
        by,
        leadId: leads[0]!.uuid,
        patch: { systemFields: { email: 'uma@new.test', jobTitle: null } },
        source: 'api',
        now: Date.now(),
      });
      await eventually(async () => {
        assert.equal(withPrevious.r.received.length, 1);
        assert.equal(without.r.received.length, 1);
      }, 10_000);
      const [a] = withPrevious.r.received.map((x) => x.payload);
      const [b] = without.r.received.map((x) => x.payload);
      for (const body of [a, b]) conforms(updatedShape, body);
      assert.deepEqual(
        [a!.type, a!.data.leadId, a!.data.changeSource, a!.data.changedFields],
        ['lead.updated', leads[0]!.uuid, 'api', ['systemFields.email', 'systemFields.jobTitle']],
      );
      assert.deepEqual(a!.data.previous, { systemFields: { email: 'uma@old.test', jobTitle: 'Buyer' } });
      assert.equal(a!.data.lead.systemFields.email, 'uma@new.test');
      assert.equal(b!.type, 'lead.updated');
      assert.equal('previous' in b!.data, false, 'no previous values without includePrevious');
      assert.deepEqual(b!.data.changedFields, a!.data.changedFields);
      assert.deepEqual(b!.data.lead, a!.data.lead);
      assert.deepEqual(await planned(String(createdOnly.data.id)), ['lead.created', 'lead.created']);

      // Turned off over the API: the next change reaches it without `previous`.
      const off = await call('PATCH', `${PATH}/${withPrevious.data.id}`, { includePrevious: false });
      assert.equal(off.statusCode, 200, off.body);
      await updateLead(store, {
        by,
        leadId: leads[0]!.uuid,
        patch: { systemFields: { companyName: 'Uma GmbH' } },
        source: 'api',
        now: Date.now(),
      });
      await eventually(async () => assert.equal(withPrevious.r.received.length, 2), 10_000);
      const second = withPrevious.r.received[1]!.payload;
      conforms(updatedShape, second);
      assert.deepEqual(second.data.changedFields, ['systemFields.companyName']);
      assert.equal('previous' in second.data, false, 'includePrevious turned off');

      // And on again: the previous values come back.
      await call('PATCH', `${PATH}/${withPrevious.data.id}`, { includePrevious: true });
      await mergeLeads(store, {
        by,
        leadId: leads[0]!.uuid,
        mergeLeadIds: [leads[1]!.uuid],
        source: 'cli',
        now: Date.now(),
      });
      // The survivor took nothing (it has a company): the merge is one lead.merged.
      const merged = await eventually(async () => {
        const found = withPrevious.r.received.find((x) => x.payload.type === 'lead.merged');
        assert.ok(found);
        return found.payload;
      }, 10_000);
      conforms(mergedShape, merged);
      assert.deepEqual(merged, {
        type: 'lead.merged',
        timestamp: merged.timestamp,
        data: { leadId: leads[1]!.uuid, mergedInto: leads[0]!.uuid, changeSource: 'cli' },
      });
      await updateLead(store, {
        by,
        leadId: leads[0]!.uuid,
        patch: { systemFields: { jobTitle: 'Lead buyer' } },
        source: 'api',
        now: Date.now(),
      });
      const last = await eventually(async () => {
        const found = withPrevious.r.received.slice(2).filter((x) => x.payload.type === 'lead.updated');
        assert.equal(found.length, 1);
        return found[0]!.payload;
      }, 10_000);
      conforms(updatedShape, last);
      assert.deepEqual(last.data.changedFields, ['systemFields.jobTitle']);
      assert.deepEqual(last.data.previous, { systemFields: { jobTitle: null } }, 'includePrevious on again');
      assert.equal(withPrevious.r.received.length, 4);
      assert.deepEqual(withPrevious.r.forged, []);
      assert.deepEqual(without.r.forged, []);
      assert.deepEqual(await planned(String(createdOnly.data.id)), ['lead.created', 'lead.created']);
    });
  });
}
