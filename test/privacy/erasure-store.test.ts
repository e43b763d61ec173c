import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Caller } from '../../src/directory/directory.js';
import type { StoredLead } from '../../src/leads/lead.js';
import type { LeadScope } from '../../src/leads/leads.port.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { feedEntryToV2 } from '../../src/leads/v2-wire.js';
import { EMAIL_HASH_SECRET, emailHash } from '../../src/privacy/email.js';
import { eraseData } from '../../src/privacy/erase.js';
import { AppError } from '../../src/shared/errors.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { leadRecords } from '../support/lead-records.js';

/**
 * Issue 40, erasure in the store on every engine (docs/privacy.md "Erasure"): by e-mail
 * (normalised), with the leads merged into an erased one; the tombstone leaves every read but
 * the feed, which gives `{leadId, erased: true}` at its end; other leads stay; the receipt's
 * counts; by lead ids, all or nothing; who may.
 */
const TEAM = 40;
const OTHER_TEAM = 41;
const ADMIN = 401;
const MEMBER = 402;
const STRANGER = 411;
const caller = (memberId: number, role: 'admin' | 'member', teamId = TEAM): { caller: Caller } => ({
  caller: { keyId: 7, memberId, teamId, role, keyCreatedAt: 0, legacyV1: false },
});
let leadRecord = leadRecords('es-', 1_700_000_000_000);
const code = (c: string) => (err: unknown) => err instanceof AppError && err.code === c;

async function feedAll(store: Store, scope: LeadScope, from: string | null) {
  const leads: StoredLead[] = [];
  let at = from;
  for (;;) {
    const page = await store.leads.changes(scope, at, 200);
    leads.push(...page.leads);
    at = page.next;
    if (page.leads.length < 200) return { leads, next: at };
  }
}

/**
 * The feed from `from` once it holds every lead of `uuids`: on PostgreSQL a lead shows in the
 * feed only when every older transaction on the server has ended — another suite's included —
 * so a read right after a write may come back short (docs/v2.md).
 */
async function feedHolding(store: Store, scope: LeadScope, from: string | null, uuids: Iterable<string>) {
  const wanted = [...uuids];
  return eventually(async () => {
    const feed = await feedAll(store, scope, from);
    const held = new Set(feed.leads.map((l) => l.uuid));
    assert.deepEqual(
      wanted.filter((u) => !held.has(u)),
      [],
      'the feed holds every lead asked for',
    );
    return feed;
  });
}

async function uuidsOf(store: Store, teamId: number): Promise<Map<string, string>> {
  const byV1 = new Map<string, string>();
  for await (const b of store.leads.scan({ teamId }, 100)) for (const l of b) byV1.set(l.id, l.uuid);
  return byV1;
}

for (const engine of enginesUnderTest()) {
  describe(`erasure in the store [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let ids: Map<string, string>;

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      leadRecord = leadRecords('es-', 1_700_000_000_000); // each engine's store the same leads
      await load(store, [
        { type: 'team', id: TEAM, name: 'Erasure' },
        { type: 'team', id: OTHER_TEAM, name: 'Other' },
        ...[ADMIN, MEMBER].map((id) => ({
          type: 'member',
          id,
          teamId: TEAM,
          email: `m${id}@c.test`,
          pid: `p${id}`,
          role: id === ADMIN ? 'admin' : 'member',
        })),
        { type: 'member', id: STRANGER, teamId: OTHER_TEAM, email: 's@c.test', pid: 'ps', role: 'admin' },
        {
          ...leadRecord(MEMBER, { name: 'Anna Müller', email: 'Anna@X.test', lat: '1', long: '2' }),
          id: 'anna1',
        },
        { ...leadRecord(MEMBER, { name: 'Anna M', email: '  anna@x.test ' }), id: 'anna2' },
        {
          ...leadRecord(MEMBER, { name: 'Anna Work', number: '+49 151 1', email: 'anna@work.test' }),
          id: 'annaw',
        },
        { ...leadRecord(MEMBER, { name: 'Bob Keep', email: 'bob@x.test' }), id: 'bob' },
        { ...leadRecord(MEMBER, { name: 'Hanna Near', email: 'hanna@x.test' }), id: 'hanna' },
        { ...leadRecord(STRANGER, { name: 'Anna Elsewhere', email: 'anna@x.test' }), id: 'annao' },
      ]);
      ids = await uuidsOf(store, TEAM);
      // The team decided anna@work.test is the same person: merged into anna1.
      await mergeLeads(store, {
        by: { operator: { teamId: TEAM } },
        leadId: ids.get('anna1')!,
        mergeLeadIds: [ids.get('annaw')!],
        source: 'cli',
        now: Date.now(),
      });
    });
    after(() => made.cleanup());

    test('a member may not erase; nor may a key of another team reach this team', async () => {
      await assert.rejects(
        eraseData(store, { by: caller(MEMBER, 'member'), email: 'anna@x.test', now: Date.now() }),
        code('forbidden'),
      );
      await assert.rejects(
        eraseData(store, {
          by: caller(STRANGER, 'admin', OTHER_TEAM),
          leadIds: [ids.get('bob')!],
          now: Date.now(),
        }),
        code('invalid-parameters'),
      );
      assert.notEqual(await store.leads.byUuid({ teamId: TEAM }, ids.get('bob')!), null);
    });

    test('bad input leaves the store as it was', async () => {
      const before = await feedHolding(store, { teamId: TEAM }, null, ids.values());
      await assert.rejects(
        eraseData(store, { by: caller(ADMIN, 'admin'), email: 'not an address', now: 1 }),
        code('invalid-parameters'),
      );
      await assert.rejects(
        eraseData(store, { by: caller(ADMIN, 'admin'), now: 1 }),
        code('invalid-parameters'),
      );
      await assert.rejects(
        eraseData(store, {
          by: caller(ADMIN, 'admin'),
          leadIds: [ids.get('bob')!, '0190a000-0000-7000-8000-000000000000'],
          now: 1,
        }),
        code('invalid-parameters'),
      );
      const now = await feedAll(store, { teamId: TEAM }, null);
      assert.deepEqual(now, before);
    });

    test('by e-mail: the matching leads and the one merged into them become tombstones at the feed end', async () => {
      const { next } = await feedHolding(store, { teamId: TEAM }, null, ids.values());
      const receipt = await eraseData(store, {
        by: caller(ADMIN, 'admin'),
        email: ' ANNA@x.test',
        now: Date.now(),
      });
      assert.equal(receipt.teamId, TEAM);
      assert.deepEqual(receipt.requestedBy, { via: 'key', keyId: 7, memberId: ADMIN });
      assert.equal(receipt.emailHash, emailHash(await store.secret(EMAIL_HASH_SECRET), 'anna@x.test'));
      assert.deepEqual([receipt.counts.leads, receipt.counts.mergedLeads, receipt.leadIds], [3, 1, 0]);
      assert.equal(receipt.counts.searchRows, 3);
      assert.deepEqual(await store.erasures.receipt(receipt.id), receipt);
      await store.erasures.reclaim();

      const erased = ['anna1', 'anna2', 'annaw'].map((k) => ids.get(k)!);
      const feed = await feedHolding(store, { teamId: TEAM }, next, erased);
      assert.deepEqual(new Set(feed.leads.map((l) => l.uuid)), new Set(erased));
      for (const l of feed.leads) {
        assert.deepEqual(feedEntryToV2(l), { leadId: l.uuid, erased: true });
        assert.deepEqual(
          [l.fields, l.firstName, l.lastName, l.lat, l.long, l.userPid],
          ['{}', null, null, null, null, ''],
        );
      }
      for (const id of erased) assert.equal(await store.leads.byUuid({ teamId: TEAM }, id, true), null);
      const scanned = await uuidsOf(store, TEAM);
      assert.deepEqual([...scanned.keys()].sort(), ['bob', 'hanna']);
      const found = await store.leads.search(
        {
          scope: { teamId: TEAM },
          start: null,
          end: null,
          sources: null,
          hasEmail: null,
          text: [{ fields: ['email', 'fullName'], value: 'anna', match: 'FUZZY' }],
        },
        'ASC',
        null,
        10,
      );
      assert.deepEqual(
        found.map((l) => l.id),
        ['hanna'],
      );
      assert.equal((await store.leads.lastOfMember(TEAM, MEMBER))?.id, 'hanna');
      const range: string[] = [];
      for await (const b of store.leads.range({ teamId: TEAM }, { start: 0, end: null }, 100))
        range.push(...b.map((l) => l.id));
      assert.deepEqual(range, ['bob', 'hanna']);
      // Another team's lead of the same address is the other team's business.
      assert.equal((await uuidsOf(store, OTHER_TEAM)).has('annao'), true);
      // Remembered as the team's suppression, and erasing again matches nothing.
      assert.equal(await store.erasures.suppressed(TEAM, receipt.emailHash!), true);
      assert.equal(await store.erasures.suppressed(OTHER_TEAM, receipt.emailHash!), false);
      const again = await eraseData(store, {
        by: caller(ADMIN, 'admin'),
        email: 'anna@x.test',
        now: Date.now(),
      });
      assert.equal(again.counts.leads, 0);
    });

    test('an e-mail that matches nothing is still suppressed (HubSpot behaviour)', async () => {
      const receipt = await eraseData(store, {
        by: { operator: { teamId: null } },
        email: 'nobody@x.test',
        now: Date.now(),
      });
      assert.deepEqual(
        [receipt.teamId, receipt.requestedBy, receipt.counts.leads],
        [null, { via: 'operator' }, 0],
      );
      assert.equal(await store.erasures.suppressed(TEAM, receipt.emailHash!), true);
      assert.equal(await store.erasures.suppressed(OTHER_TEAM, receipt.emailHash!), true);
      const listed = await store.erasures.suppressions(null);
      assert.equal(
        listed.some((s) => s.teamId === null && s.emailHash === receipt.emailHash),
        true,
      );
      assert.equal(await store.erasures.unsuppress(null, receipt.emailHash!), true);
      assert.equal(await store.erasures.suppressed(TEAM, receipt.emailHash!), false);
      assert.equal(await store.erasures.unsuppress(null, receipt.emailHash!), false);
    });

    test('by lead ids: exactly those leads; an erased id cannot be erased again', async () => {
      const bob = ids.get('bob')!;
      const receipt = await eraseData(store, {
        by: caller(ADMIN, 'admin'),
        leadIds: [bob.toUpperCase()],
        now: Date.now(),
      });
      assert.deepEqual([receipt.counts.leads, receipt.leadIds, receipt.emailHash], [1, 1, null]);
      assert.deepEqual([...(await uuidsOf(store, TEAM)).keys()], ['hanna']);
      // Its lead.erased event: a version 7 id of the erasure's time (PostgreSQL makes it in SQL).
      // On PostgreSQL the log shows it once every older transaction on the server has ended
      // (other test files' included): `eventually`.
      const event = await eventually(async () => {
        const log = await store.webhooks.log({
          scope: { teamId: TEAM },
          teamEvents: false,
          types: ['lead.erased'],
          after: null,
          limit: 100,
        });
        const found = log.events.find((e) => e.lead?.uuid === bob);
        assert.ok(found, 'a lead.erased event of the erased lead');
        return found;
      });
      assert.match(event.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(Number.parseInt(event.id.replace('-', '').slice(0, 12), 16), receipt.requestedAt);
      assert.equal(event.createdAt, receipt.requestedAt);
      await assert.rejects(
        eraseData(store, { by: caller(ADMIN, 'admin'), leadIds: [bob], now: Date.now() }),
        code('invalid-parameters'),
      );
    });
  });
}
