import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Lead, StoredLead } from '../../src/leads/lead.js';
import type {
  IdempotencyClaim,
  LeadFilter,
  LeadScope,
  NewLead,
  SearchPosition,
  TextClause,
} from '../../src/leads/leads.port.js';
import { fold, type TextField } from '../../src/leads/text.js';
import { openStore } from '../../src/open-store.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { newLeadOf } from './new-lead.js';

/**
 * The v2 store promises (search, byUuid, changes, create, secret), one body per behaviour, run on
 * every engine. Each test that writes has a team of its own, so tests do not disturb each other.
 */
const member = (id: number, teamId: number) => ({
  type: 'member',
  id,
  teamId,
  email: `m${id}@t.test`,
  pid: `p${id}`,
});
const lead = (userId: number, id: string, epoch: number, more: Record<string, unknown> = {}) => ({
  type: 'lead',
  userId,
  id,
  epoch,
  ...(more.isScan === true ? {} : { isLead: true }),
  ...more,
});
const directory = [
  ...[1, 2, 3, 4, 6, 7, 8, 9].map((id) => ({ type: 'team', id, name: `Team ${id}` })),
  ...[11, 12, 13, 14].map((id) => member(id, 1)),
  ...[21, 31, 41, 61, 71, 72, 81, 91].map((id) => member(id, Math.floor(id / 10))),
  { type: 'subteam', id: 5, teamId: 1, name: 'B and C', members: [12, 13], admins: [11] },
  { type: 'subteam', id: 6, teamId: 1, name: 'D', members: [14], admins: [14] },
  { type: 'subteam', id: 7, teamId: 2, name: 'Other team', members: [21], admins: [21] },
];
// Team 1, in storage order; team 2 holds a twin of `john` that no team-1 read may return.
const team1 = [
  lead(11, 'john', 1000, { name: 'John Smith', email: 'John.Smith@Example.test', company: 'ACME Corp' }),
  lead(12, 'jose', 2000, { name: 'José García', company: 'Globex' }),
  lead(12, 'maria', 2000, {
    name: 'Maria Jonas',
    email: 'maria@globex.test',
    company: 'Globex',
    apptoapp: true,
  }),
  lead(13, 'lover', 3000, {
    name: 'Acme Lover',
    email: 'lover@initech.test',
    company: 'Initech',
    isScan: true,
  }),
  lead(14, 'zed', 4000, { name: 'Zed Quist', company: 'Acme', isManual: true }),
  lead(13, 'hyphen', 5000, { name: 'Pat Doe', email: 'john-smith@example.test' }),
  lead(11, 'late', 5000, { name: 'Kim Lee', email: 'kim@lee.test', isManual: true }),
  lead(21, 'other', 2000, { name: 'John Smith', email: 'John.Smith@Example.test', company: 'ACME Corp' }),
];
const NEWEST_FIRST = ['late', 'hyphen', 'zed', 'lover', 'maria', 'jose', 'john'];

const filter = (scope: LeadScope, more: Partial<LeadFilter> = {}): LeadFilter => ({
  scope,
  start: null,
  end: null,
  sources: null,
  hasEmail: null,
  text: [],
  ...more,
});
const ids = (leads: Lead[]): string[] => leads.map((l) => l.id);
const clause =
  (match: 'FUZZY' | 'EXACT') =>
  (fields: TextField[], value: string): TextClause => ({ fields, value: fold(value), match });
const fuzzy = clause('FUZZY');
const exact = clause('EXACT');

/** A lead as v2 creation hands it over. */
function created(
  teamId: number,
  memberId: number,
  epoch: number,
  name: string,
  id: string | null = null,
): NewLead {
  const fields = { name, isLead: true, apptoapp: false, isManual: false };
  const [firstName = null, lastName = null] = name.split(' ');
  return newLeadOf({ teamId, memberId, id, epoch, fields, source: 'QR_CODE_SCAN', firstName, lastName });
}

for (const engine of enginesUnderTest()) {
  describe(`v2 store contract (${engine})`, () => {
    let made: EngineStore;
    let store: Store;
    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [...directory, ...team1]);
    });
    after(() => made.cleanup());

    const search = (f: LeadFilter, dir: 'ASC' | 'DESC' = 'DESC', limit = 1000) =>
      store.leads.search(f, dir, null, limit).then(ids);

    /** Every page from the start, following the keyset; `between` runs after each full page. */
    async function walk(
      f: LeadFilter,
      dir: 'ASC' | 'DESC',
      limit: number,
      between?: (last: Lead) => Promise<void>,
    ) {
      const out: Lead[] = [];
      let position: SearchPosition | null = null;
      for (let pages = 0; pages < 10_000; pages++) {
        const page = await store.leads.search(f, dir, position, limit);
        assert.ok(page.length <= limit, 'a page holds at most `limit` leads');
        out.push(...page);
        const last = page.at(-1);
        if (last === undefined || page.length < limit) return out;
        position = { epoch: last.epoch, seq: last.seq };
        await between?.(last);
      }
      assert.fail('paging did not end');
    }

    test('search: DESC newest first, ASC oldest first; equal epochs in storage order', async () => {
      assert.deepEqual(await search(filter({ teamId: 1 })), NEWEST_FIRST);
      assert.deepEqual(await search(filter({ teamId: 1 }), 'ASC'), [...NEWEST_FIRST].reverse());
      for (const limit of [1, 2, 3, 7]) {
        assert.deepEqual(ids(await walk(filter({ teamId: 1 }), 'DESC', limit)), NEWEST_FIRST);
        assert.deepEqual(ids(await walk(filter({ teamId: 1 }), 'ASC', limit)), [...NEWEST_FIRST].reverse());
      }
    });

    test('search: 3,000 leads sharing one millisecond page without duplicate or gap', async () => {
      const tied = Array.from({ length: 3000 }, (_, i) => `t${i}`);
      const early = Array.from({ length: 10 }, (_, i) => `e${i}`);
      const later = Array.from({ length: 10 }, (_, i) => `l${i}`);
      await load(store, [
        ...later.map((id) => lead(31, id, 8000)),
        ...tied.map((id) => lead(31, id, 7000)),
        ...early.map((id) => lead(31, id, 6000)),
      ]);
      const oldestFirst = [...early, ...tied, ...later];
      assert.deepEqual(ids(await walk(filter({ teamId: 3 }), 'ASC', 100)), oldestFirst);
      assert.deepEqual(ids(await walk(filter({ teamId: 3 }), 'DESC', 100)), [...oldestFirst].reverse());
    });

    test('search: leads stored between pages never duplicate or hide the leads already there', async () => {
      await load(
        store,
        Array.from({ length: 300 }, (_, i) => lead(41, `p${i}`, 1000 + (i % 30) * 10)),
      );
      let n = 0;
      const addAround = async (last: Lead) => {
        const at = [last.epoch - 5, last.epoch, last.epoch, last.epoch + 5];
        await load(
          store,
          at.map((epoch) => lead(41, `new${n++}`, epoch)),
        );
        await store.leads.create(created(4, 41, last.epoch, 'Between Pages'), null);
      };
      for (const dir of ['DESC', 'ASC'] as const) {
        const before = ids(await walk(filter({ teamId: 4 }), dir, 1000));
        const seen = ids(await walk(filter({ teamId: 4 }), dir, 100, addAround));
        assert.equal(new Set(seen).size, seen.length, 'no lead twice');
        const old = seen.filter((id) => before.includes(id));
        assert.deepEqual(old, before, 'every lead stored before, once, in order');
      }
    });

    test('search scope: team, members, current subteam members, their union', async () => {
      const scoped = (scope: Omit<LeadScope, 'teamId'>, teamId = 1) => search(filter({ teamId, ...scope }));
      assert.deepEqual(await scoped({ members: [12] }), ['maria', 'jose']);
      assert.deepEqual(await scoped({ members: [11, 21] }), ['late', 'john'], "team 2's member adds nothing");
      assert.deepEqual(
        await scoped({ subteams: [5] }),
        ['hyphen', 'lover', 'maria', 'jose'],
        'admins are not members',
      );
      assert.deepEqual(await scoped({ subteams: [6] }), ['zed']);
      assert.deepEqual(await scoped({ members: [11], subteams: [6] }), ['late', 'zed', 'john']);
      assert.deepEqual(await scoped({ subteams: [7] }), [], "another team's subteam");
      assert.deepEqual(await scoped({}, 2), ['other']);
    });

    test('search filters: half-open time range, sources, e-mail presence', async () => {
      const team1 = (more: Partial<LeadFilter>) => search(filter({ teamId: 1 }, more));
      assert.deepEqual(await team1({ start: 2000, end: 5000 }), ['zed', 'lover', 'maria', 'jose']);
      assert.deepEqual(await team1({ start: 5000 }), ['late', 'hyphen']);
      assert.deepEqual(await team1({ end: 2000 }), ['john']);
      assert.deepEqual(await team1({ start: 3000, end: 3000 }), []);
      assert.deepEqual(await team1({ sources: ['MANUAL'] }), ['late', 'zed']);
      assert.deepEqual(await team1({ sources: ['APP_TO_APP', 'BUSINESS_CARD_SCAN'] }), ['lover', 'maria']);
      assert.deepEqual(await team1({ sources: ['PROFILE_CONNECTION'] }), ['hyphen', 'jose', 'john']);
      assert.deepEqual(await team1({ hasEmail: true }), ['late', 'hyphen', 'lover', 'maria', 'john']);
      assert.deepEqual(await team1({ hasEmail: false }), ['zed', 'jose']);
      assert.deepEqual(await team1({ hasEmail: true, sources: ['MANUAL'], start: 4000 }), ['late']);
    });

    test('FUZZY: a typo, an accent, case and part of a longer field; only the clause’s fields', async () => {
      const text = (...clauses: LeadFilter['text']) => search(filter({ teamId: 1 }, { text: clauses }));
      const jonh = await text(fuzzy(['firstName'], 'jonh'));
      assert.ok(jonh.includes('john'), `"jonh" finds John: ${jonh}`);
      for (const other of ['maria', 'lover', 'zed', 'hyphen', 'late'])
        assert.ok(!jonh.includes(other), other);
      const jose = await text(fuzzy(['firstName', 'lastName'], 'jose'));
      assert.ok(jose.includes('jose'), `"jose" finds José: ${jose}`);
      for (const other of ['lover', 'zed', 'hyphen', 'late']) assert.ok(!jose.includes(other), other);
      assert.deepEqual(
        await text(fuzzy(['companyName'], 'Acme')),
        ['zed', 'john'],
        'not the lead named Acme',
      );
      assert.deepEqual(await text(fuzzy(['fullName'], 'acme')), ['lover']);
      assert.deepEqual(await text(fuzzy(['fullName', 'companyName'], 'acme')), ['zed', 'lover', 'john']);
      assert.deepEqual(await text(fuzzy(['note', 'jobTitle'], 'acme')), []);
      assert.deepEqual(
        ids(await walk(filter({ teamId: 1 }, { text: [fuzzy(['companyName'], 'acme')] }), 'ASC', 1)),
        ['john', 'zed'],
      );
    });

    test('EXACT: the whole folded field; clauses AND together', async () => {
      const text = (...clauses: LeadFilter['text']) => search(filter({ teamId: 1 }, { text: clauses }));
      assert.deepEqual(await text(exact(['email'], 'JOHN.SMITH@example.TEST')), ['john']);
      assert.deepEqual(await text(exact(['email'], 'john.smith')), [], 'a part is not the whole');
      assert.deepEqual(await text(exact(['fullName'], 'jose garcia')), ['jose']);
      assert.deepEqual(await text(exact(['fullName', 'email'], 'maria@globex.test')), ['maria']);
      assert.deepEqual(await text(fuzzy(['companyName'], 'globex'), fuzzy(['firstName'], 'maria')), [
        'maria',
      ]);
      assert.deepEqual(
        await text(fuzzy(['companyName'], 'acme'), exact(['email'], 'john.smith@example.test')),
        ['john'],
      );
      assert.deepEqual(await text(fuzzy(['companyName'], 'acme'), fuzzy(['firstName'], 'maria')), []);
    });

    test('search text follows a re-import that replaces the lead', async () => {
      await load(store, [lead(61, 'r', 100, { name: 'Olga Petrova' })]);
      const f = (value: string) => filter({ teamId: 6 }, { text: [fuzzy(['fullName'], value)] });
      const [first] = await store.leads.search(f('olga'), 'DESC', null, 10);
      assert.equal(first?.id, 'r');
      await load(store, [lead(61, 'r', 100, { name: 'Sven Berg', email: 'sven@berg.test' })]);
      assert.deepEqual(await search(f('olga')), []);
      const [again] = await store.leads.search(f('sven'), 'DESC', null, 10);
      assert.equal(again?.uuid, first?.uuid, 'the same lead, in its place');
      assert.deepEqual(await search(filter({ teamId: 6 }, { hasEmail: true })), ['r']);
    });

    test('a lead twice in one import, then a re-import of new and replaced leads: first place, last values', async () => {
      const named = (value: string) => search(filter({ teamId: 10 }, { text: [exact(['fullName'], value)] }));
      const all = () => store.leads.search(filter({ teamId: 10 }), 'ASC', null, 10);
      const first = await load(store, [
        { type: 'team', id: 10, name: 'Team 10' },
        member(101, 10),
        lead(101, 'a', 100, { name: 'Ann One' }),
        lead(101, 'b', 200, { name: 'Bob One' }),
        lead(101, 'a', 100, { name: 'Ann Two' }),
      ]);
      assert.equal(first.newLeads, 2);
      const stored = await all();
      assert.deepEqual(ids(stored), ['a', 'b']);
      assert.ok(stored[0]!.seq < stored[1]!.seq, 'a keeps the place it came first at');
      assert.deepEqual(await named('ann two'), ['a']);
      assert.deepEqual(await named('ann one'), []);
      const again = await load(store, [
        lead(101, 'c', 300, { name: 'Cy New' }),
        lead(101, 'b', 200, { name: 'Bob Two' }),
        lead(101, 'a', 100, { name: 'Ann Three' }),
        lead(101, 'b', 200, { name: 'Bob Three' }),
      ]);
      assert.equal(again.newLeads, 1);
      const after = await all();
      assert.deepEqual(ids(after), ['a', 'b', 'c']);
      assert.deepEqual(
        after.slice(0, 2).map((l) => [l.seq, l.uuid]),
        stored.map((l) => [l.seq, l.uuid]),
        'replaced leads keep their seq and uuid',
      );
      assert.ok(after[2]!.seq > stored[1]!.seq);
      for (const gone of ['ann one', 'ann two', 'bob one', 'bob two'])
        assert.deepEqual(await named(gone), []);
      assert.deepEqual(await named('ann three'), ['a']);
      assert.deepEqual(await named('bob three'), ['b']);
      assert.deepEqual(await named('cy new'), ['c']);
    });

    test('byUuid: the lead when in scope, null otherwise', async () => {
      const [john] = await store.leads.search(filter({ teamId: 1 }, { end: 2000 }), 'DESC', null, 1);
      assert.ok(john !== undefined);
      assert.equal((await store.leads.byUuid({ teamId: 1 }, john.uuid))?.id, 'john');
      assert.equal((await store.leads.byUuid({ teamId: 1, members: [11] }, john.uuid))?.id, 'john');
      assert.equal(await store.leads.byUuid({ teamId: 1, members: [12] }, john.uuid), null);
      assert.equal(await store.leads.byUuid({ teamId: 1, subteams: [5] }, john.uuid), null);
      assert.equal(await store.leads.byUuid({ teamId: 2 }, john.uuid), null);
      assert.equal(await store.leads.byUuid({ teamId: 1 }, '00000000-0000-7000-8000-000000000000'), null);
    });

    test('changes: storage order, late arrivals after what was stored before them; paging by next', async () => {
      await load(store, [lead(71, 'c3000', 3000), lead(71, 'c1000', 1000), lead(72, 'c2000', 2000)]);
      await load(store, [lead(71, 'c500-late', 500)]);
      const order = ['c3000', 'c1000', 'c2000', 'c500-late'];
      await eventually(async () =>
        assert.deepEqual(ids((await store.leads.changes({ teamId: 7 }, null, 100)).leads), order),
      );
      const seen: Lead[] = [];
      let position: string | null = null;
      for (let i = 0; i < 10; i++) {
        const page = await store.leads.changes({ teamId: 7 }, position, 1);
        if (page.leads.length === 0) {
          assert.equal(page.next, position, 'an empty page stays where it was');
          break;
        }
        seen.push(...page.leads);
        position = page.next;
      }
      assert.deepEqual(ids(seen), order);
      await load(store, [lead(72, 'c100-later', 100)]);
      await eventually(async () =>
        assert.deepEqual(ids((await store.leads.changes({ teamId: 7 }, position, 100)).leads), [
          'c100-later',
        ]),
      );
      const mine = await store.leads.changes({ teamId: 7, members: [72] }, null, 100);
      assert.deepEqual(ids(mine.leads), ['c2000', 'c100-later']);
    });

    test('create: stored at once, visible to every read; no v1 id → a random one', async () => {
      const result = await store.leads.create(created(8, 81, 500, 'Nina Created'), null);
      assert.equal(result.kind, 'created');
      const stored = (result as { lead: StoredLead }).lead;
      assert.deepEqual(
        [stored.version, stored.mergedInto, stored.changedVia, stored.erased],
        [1, null, null, false],
      );
      const { version: _v, mergedInto: _m, changedVia: _c, erased: _e, ...lead } = stored;
      assert.match(lead.id, /^[1-9][0-9]{15}$/);
      assert.notEqual(lead.id, String(lead.seq));
      assert.match(lead.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(lead.source, 'QR_CODE_SCAN');
      assert.deepEqual([lead.firstName, lead.lastName, lead.userEmail], ['Nina', 'Created', 'm81@t.test']);
      assert.ok(Math.abs(lead.createdAt - Date.now()) < 60_000);
      assert.equal((await store.leads.lastOfMember(8, 81))?.uuid, lead.uuid);
      const range: Lead[] = [];
      for await (const batch of store.leads.range({ teamId: 8 }, { start: 0, end: 1000 }, 100))
        range.push(...batch);
      assert.deepEqual(range, [lead]);
      const named = filter({ teamId: 8 }, { text: [fuzzy(['firstName'], 'nina')] });
      assert.deepEqual(await store.leads.search(named, 'DESC', null, 10), [lead]);
      assert.deepEqual(await store.leads.byUuid({ teamId: 8 }, lead.uuid), stored);
      await eventually(async () =>
        assert.deepEqual((await store.leads.changes({ teamId: 8 }, null, 100)).leads.at(-1), stored),
      );
      const withId = await store.leads.create(created(8, 81, 600, 'Ivo Given', 'crm-7'), null);
      assert.equal(withId.kind === 'created' && withId.lead.id, 'crm-7');
    });

    test('create with an Idempotency-Key: replay returns the first lead, another body conflicts', async () => {
      const at = Date.now();
      const claim = (more: Partial<IdempotencyClaim> = {}) => ({
        keyId: 9001,
        key: 'k-1',
        bodyHash: 'h1',
        at,
        ...more,
      });
      const first = await store.leads.create(created(9, 91, 700, 'Once Only'), claim());
      const again = await store.leads.create(created(9, 91, 700, 'Once Only'), claim({ at: at + 1000 }));
      assert.equal(first.kind, 'created');
      assert.equal(again.kind, 'replayed');
      assert.equal(again.kind === 'replayed' && again.lead.uuid, first.kind === 'created' && first.lead.uuid);
      const once = filter({ teamId: 9 }, { text: [exact(['fullName'], 'once only')] });
      assert.equal((await store.leads.search(once, 'DESC', null, 10)).length, 1, 'stored once');
      assert.deepEqual(await store.leads.create(created(9, 91, 700, 'Other'), claim({ bodyHash: 'h2' })), {
        kind: 'conflict',
      });
      const otherKey = await store.leads.create(created(9, 91, 700, 'Once Only'), claim({ keyId: 9002 }));
      assert.equal(otherKey.kind, 'created', 'keys are per API key');
      const expired = await store.leads.create(
        created(9, 91, 700, 'Other'),
        claim({ bodyHash: 'h2', at: at + 24 * 60 * 60 * 1000 + 1 }),
      );
      assert.equal(expired.kind, 'created', 'a key is remembered for 24 hours');
      assert.equal((await store.leads.search(once, 'DESC', null, 10)).length, 2);
    });

    test('secret: 32 random bytes per name, the same for every call and every instance', async () => {
      const one = await store.secret('v2-contract');
      assert.equal(one.length, 32);
      assert.deepEqual(await store.secret('v2-contract'), one);
      assert.notDeepEqual(await store.secret('v2-contract-other'), one);
      const second = await openStore(made.location);
      try {
        assert.deepEqual(await second.secret('v2-contract'), one);
      } finally {
        await second.close();
      }
    });
  });
}
