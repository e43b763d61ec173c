import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StoredLead } from '../../src/leads/lead.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { updateLead } from '../../src/leads/update-lead.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { leadRecords } from '../support/lead-records.js';

/**
 * Issue 39: `lead.updated` and `lead.merged` go through the outbox like `lead.created` — written
 * in the change's transaction, dispatched to the team's endpoints that take the type; the
 * previous values only to an endpoint that asked for them (includePrevious). An import that
 * changes a lead announces it too (source `import`).
 */
const TEAM = 3961;
const ADMIN = 39611;
const record = leadRecords('e-', 1_750_000_000_000);
const leadRecord = (more: object) => record(ADMIN, { ...more });

for (const engine of enginesUnderTest()) {
  describe(`lead change events [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let withPrevious: string;
    let without: string;
    let leads: StoredLead[];
    const by = { operator: { teamId: TEAM } };

    /** Dispatches what waits, claims it all: each endpoint's bodies in event order. */
    async function delivered(): Promise<
      Map<string, { id: string; type: string; data: Record<string, unknown> }[]>
    > {
      const at = Date.now() + 60_000;
      while ((await store.deliveries.dispatch(100, at)) > 0);
      const out = new Map<string, { id: string; type: string; data: Record<string, unknown> }[]>();
      for (const d of (await store.deliveries.claim(100, at)).sort((a, b) => a.id - b.id))
        out.set(d.endpointId, [
          ...(out.get(d.endpointId) ?? []),
          { ...JSON.parse(d.payload), id: d.eventId },
        ]);
      return out;
    }

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Events' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'a@events.test', role: 'admin', pid: 'p' },
        leadRecord({ name: 'Ida Alt', email: 'ida@old.test' }),
        leadRecord({ email: 'ida@old.test', company: 'Acme' }),
      ]);
      const endpoint = async (includePrevious: boolean) =>
        (
          await store.webhooks.addEndpoint({
            teamId: TEAM,
            url: `https://hooks.example.com/${includePrevious}`,
            description: null,
            eventTypes: ['lead.created', 'lead.updated', 'lead.merged'],
            members: null,
            subteams: null,
            secret: 'whsec_x',
            includePrevious,
            createdAt: Date.now() - 1000,
          })
        ).id;
      withPrevious = await endpoint(true);
      without = await endpoint(false);
      assert.equal((await store.webhooks.endpoint('operator', withPrevious))?.includePrevious, true);
      leads = [];
      for await (const b of store.leads.scan({ teamId: TEAM }, 10)) leads.push(...b);
      await delivered();
    });
    after(() => made.cleanup());

    test('lead.updated names the changed fields; previous values only where asked for', async () => {
      await updateLead(store, {
        by,
        leadId: leads[0]!.uuid,
        patch: { systemFields: { email: 'ida@new.test' } },
        source: 'api',
        now: Date.now(),
      });
      const bodies = await delivered();
      const [a] = bodies.get(withPrevious)!;
      const [b] = bodies.get(without)!;
      assert.equal(a?.type, 'lead.updated');
      assert.deepEqual(
        [a?.data.leadId, a?.data.changeSource, a?.data.changedFields, a?.data.previous],
        [leads[0]!.uuid, 'api', ['systemFields.email'], { systemFields: { email: 'ida@old.test' } }],
      );
      assert.equal((a!.data.lead as { systemFields: { email: string } }).systemFields.email, 'ida@new.test');
      assert.equal(b?.type, 'lead.updated');
      assert.equal('previous' in (b?.data ?? {}), false);
    });

    test('lead.merged names the survivor; the survivor that took values is lead.updated', async () => {
      await mergeLeads(store, {
        by,
        leadId: leads[0]!.uuid,
        mergeLeadIds: [leads[1]!.uuid],
        source: 'cli',
        now: Date.now(),
      });
      const bodies = (await delivered()).get(without)!;
      const merged = bodies.find((x) => x.type === 'lead.merged');
      assert.deepEqual(merged?.data, {
        leadId: leads[1]!.uuid,
        mergedInto: leads[0]!.uuid,
        changeSource: 'cli',
      });
      const updated = bodies.find((x) => x.type === 'lead.updated');
      assert.deepEqual(updated?.data.changedFields, ['systemFields.companyName']);
    });

    test('an import that changes a lead announces lead.updated (source import)', async () => {
      const record = leadRecord({ name: 'Jo' });
      await load(store, [record]);
      await delivered();
      await load(store, [{ ...record, name: 'Jo Neu' }]);
      const bodies = (await delivered()).get(withPrevious)!;
      assert.deepEqual(
        bodies.map((x) => [x.type, x.data.changeSource, x.data.changedFields, x.data.previous]),
        [
          [
            'lead.updated',
            'import',
            ['systemFields.lastName', 'systemFields.fullName'],
            { systemFields: { lastName: null, fullName: 'Jo' } },
          ],
        ],
      );
    });

    test('an import that creates and changes leads announces each once; SQLite in record order', async () => {
      const kept = leadRecord({ name: 'Kai' });
      await load(store, [kept]);
      await delivered();
      const first = leadRecord({ name: 'Lea' });
      const last = leadRecord({ name: 'Mo' });
      await load(store, [first, { ...kept, name: 'Kai Neu' }, last]);
      const bodies = (await delivered()).get(without)!;
      // lead.created carries the lead as its data; lead.updated under `lead`, beside the change.
      const named = bodies.map((x) => [
        x.type,
        ((x.data.lead ?? x.data) as { systemFields: { fullName: string } }).systemFields.fullName,
      ]);
      const inRecordOrder = [
        ['lead.created', 'Lea'],
        ['lead.updated', 'Kai Neu'],
        ['lead.created', 'Mo'],
      ];
      // SQLite writes a batch's events after its leads, in the order they happened; PostgreSQL's
      // one statement a batch writes the created events, then the changed ones.
      if (engine === 'sqlite') assert.deepEqual(named, inRecordOrder);
      else assert.deepEqual(new Set(named.map(String)), new Set(inRecordOrder.map(String)));
      assert.equal(named.length, 3);
      // Every event's id is a version-7 UUID, created and changed alike (as every other event's).
      for (const x of bodies)
        assert.match(x.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, x.type);
    });
  });
}
