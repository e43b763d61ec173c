import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../../src/keys/token.js';
import type { Lead } from '../../src/leads/lead.js';
import type { EpochRange, RangeScope } from '../../src/leads/leads.port.js';
import { searchable } from '../../src/leads/text.js';
import { SUBTEAM_WINDOW } from '../../src/storage/rows.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/** The store interface's promises, one test body per behaviour, run on every engine. */
const people = [
  { type: 'team', id: 1, name: 'One' },
  { type: 'team', id: 2, name: 'Two' },
  { type: 'member', id: 11, teamId: 1, email: 'a@one.test', role: 'admin', pid: 'p11' },
  { type: 'member', id: 12, teamId: 1, email: 'b@one.test', pid: 'p12' },
  { type: 'member', id: 13, teamId: 1, email: 'c@one.test', pid: 'p13' },
  { type: 'member', id: 21, teamId: 2, email: 'a@two.test', role: 'admin', pid: 'p21' },
  { type: 'subteam', id: 5, teamId: 1, name: 'B and C', members: [12, 13], admins: [11] },
  { type: 'subteam', id: 6, teamId: 2, name: 'Other team', members: [21], admins: [21] },
];
const lead = (userId: number, id: string, epoch: number) => ({
  type: 'lead',
  userId,
  id,
  epoch,
  isLead: true,
});

/** The v2 members of a lead written straight to an import writer, which only knows v1 members. */
const noText = {
  source: 'PROFILE_CONNECTION',
  firstName: null,
  lastName: null,
  ...searchable({}, { firstName: null, lastName: null }),
} as const;

async function collect(store: Store, scope: RangeScope, range: EpochRange, batch: number): Promise<Lead[]> {
  const out: Lead[] = [];
  for await (const b of store.leads.range(scope, range, batch)) {
    assert.ok(b.length > 0 && b.length <= batch, 'batches are non-empty and at most batchSize');
    out.push(...b);
  }
  return out;
}

for (const engine of enginesUnderTest()) {
  describe(`store contract (${engine})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await makeEngineStore(engine));
      // Ties at epoch 100 across members and batches; team 2's leads share the epochs.
      const leads = [];
      for (let i = 0; i < 7; i++) leads.push(lead(12, `b${i}`, 100));
      leads.push(
        lead(13, 'c0', 100),
        lead(11, 'a0', 50),
        lead(11, 'a1', 300),
        lead(13, 'c1', 200),
        lead(21, 'x', 100),
      );
      leads.push(lead(21, 'late', 10_000));
      await load(store, [...people, ...leads]);
    });
    after(() => cleanup());

    test('last of a member, a team, a subteam: greatest epoch', async () => {
      assert.equal((await store.leads.lastOfMember(1, 11))?.id, 'a1');
      assert.equal((await store.leads.lastOfTeam(1))?.id, 'a1');
      assert.equal((await store.leads.lastOfSubteam(1, 5, 12))?.lead?.id, 'c1');
      assert.equal(
        await store.leads.lastOfMember(1, 21),
        null,
        "another team's member is not found in team 1",
      );
    });

    test('a member who moves team later in the same import takes every lead along', async () => {
      const moved = await makeEngineStore(engine);
      try {
        await load(moved.store, [
          ...people,
          { type: 'member', id: 14, teamId: 1, email: 'd@one.test', pid: 'p14' },
          lead(14, 'before-move', 100),
          { type: 'member', id: 14, teamId: 2, email: 'd@one.test', pid: 'p14' },
          lead(14, 'after-move', 50),
        ]);
        assert.equal((await moved.store.leads.lastOfTeam(2))?.id, 'before-move');
        assert.equal((await moved.store.leads.lastOfMember(2, 14))?.id, 'before-move');
        assert.equal((await moved.store.leads.lastOfTeam(1))?.id, undefined, 'nothing is left in team 1');
      } finally {
        await moved.cleanup();
      }
    });

    test('a run of members written at once is what one at a time writes; a run that fails writes none of it', async () => {
      const s = await makeEngineStore(engine);
      const member = (id: number, teamId: number, email: string) =>
        ({ id, teamId, email, name: null, role: 'member', pid: `p${id}` }) as const;
      try {
        await load(s.store, [
          { type: 'team', id: 1, name: 'One' },
          { type: 'team', id: 2, name: 'Two' },
          { type: 'member', id: 11, teamId: 1, email: 'a@one.test', pid: 'p11' },
          { type: 'member', id: 12, teamId: 1, email: 'b@one.test', pid: 'p12' },
          { type: 'member', id: 21, teamId: 2, email: 'a@two.test', pid: 'p21' },
          lead(12, 'of-12', 100),
        ]);
        const stored = await s.store.importAtomically(async (w) => {
          // 11 gives a@one.test up before 13 takes it; 12 moves to team 2 and takes its lead along.
          await w.upsertMembers([
            member(11, 1, 'z@one.test'),
            member(13, 1, 'a@one.test'),
            member(12, 2, 'b@one.test'),
          ]);
          // 15 asks for the e-mail 21 has: 14 before it is not written either, and the import goes on.
          await assert.rejects(
            w.upsertMembers([member(14, 1, 'd@one.test'), member(15, 1, 'a@two.test')]),
            /unique/i,
          );
          assert.equal((await w.members([14, 15])).size, 0, 'none of the failed run');
          await w.upsertMember(member(16, 1, 'f@one.test'));
          return w.members([11, 12, 13, 16]);
        });
        assert.deepEqual(
          [...stored.values()]
            .map((m) => [m.id, m.teamId, m.email])
            .sort((a, b) => Number(a[0]) - Number(b[0])),
          [
            [11, 1, 'z@one.test'],
            [12, 2, 'b@one.test'],
            [13, 1, 'a@one.test'],
            [16, 1, 'f@one.test'],
          ],
        );
        assert.equal((await s.store.leads.lastOfTeam(2))?.id, 'of-12');
        assert.equal((await s.store.leads.lastOfTeam(1))?.id, undefined, "12's lead left team 1");
      } finally {
        await s.cleanup();
      }
    });

    test("a member's records one after another: each is written, the last one's values stay", async () => {
      const s = await makeEngineStore(engine);
      try {
        const summary = await load(s.store, [
          { type: 'team', id: 1, name: 'One' },
          { type: 'member', id: 11, teamId: 1, email: 'a@one.test', name: 'First', pid: 'p11' },
          { type: 'member', id: 12, teamId: 1, email: 'b@one.test', pid: 'p12' },
          { type: 'member', id: 11, teamId: 1, email: 'a2@one.test', name: 'Second', pid: 'p11' },
          { type: 'member', id: 13, teamId: 1, email: 'a@one.test', pid: 'p13' },
        ]);
        assert.equal(summary.members, 4);
        const stored = await s.store.importAtomically((w) => w.members([11, 13]));
        assert.deepEqual(
          [stored.get(11)?.name, stored.get(11)?.email, stored.get(13)?.email],
          ['Second', 'a2@one.test', 'a@one.test'],
        );
      } finally {
        await s.cleanup();
      }
    });

    test('equal epochs: the one stored last', async () => {
      assert.equal((await store.leads.lastOfMember(1, 12))?.id, 'b6');
    });

    test('ranges: ascending, storage order on ties, half-open, whatever the batch size', async () => {
      for (const batch of [1, 2, 3, 1000]) {
        const all = await collect(store, { teamId: 1 }, { start: 0, end: null }, batch);
        assert.deepEqual(
          all.map((l) => l.id),
          ['a0', 'b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'c0', 'c1', 'a1'],
        );
        const window = await collect(store, { teamId: 1 }, { start: 100, end: 200 }, batch);
        assert.equal(window.length, 8);
        const mine = await collect(store, { teamId: 1, memberId: 12 }, { start: 100, end: 101 }, batch);
        assert.deepEqual(
          mine.map((l) => l.id),
          ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6'],
        );
      }
      assert.deepEqual(await collect(store, { teamId: 1 }, { start: 100, end: 100 }, 10), []);
      assert.ok(
        (await collect(store, { teamId: 2 }, { start: 0, end: null }, 10)).every((l) => l.userId === 21),
      );
    });

    test('subteam access: null for another team or no such subteam; admin flag', async () => {
      assert.deepEqual(await store.directory.subteamAccess(1, 5, 11), { memberIsAdmin: true });
      assert.deepEqual(await store.directory.subteamAccess(1, 5, 12), { memberIsAdmin: false });
      assert.equal(await store.directory.subteamAccess(1, 6, 11), null);
      assert.equal(await store.directory.subteamAccess(1, 999, 11), null);
      // The same access comes with a subteam's last lead, in the same read.
      assert.equal((await store.leads.lastOfSubteam(1, 5, 11))?.memberIsAdmin, true);
      assert.equal((await store.leads.lastOfSubteam(1, 5, 12))?.memberIsAdmin, false);
      assert.equal(await store.leads.lastOfSubteam(1, 6, 11), null);
      assert.equal(await store.leads.lastOfSubteam(1, 999, 11), null);
    });

    test('members by id or e-mail; emptiness; highest ids', async () => {
      assert.equal((await store.directory.findMember('b@one.test'))?.id, 12);
      assert.equal((await store.directory.findMember(21))?.teamId, 2);
      assert.equal(await store.directory.findMember('nobody@x.test'), null);
      assert.equal(await store.directory.isEmpty(), false);
      const max = await store.directory.maxIds();
      assert.ok(max.team >= 2 && max.member >= 21 && max.subteam >= 6);
    });

    test('keys: create, find by display, list, revoke once', async () => {
      const hash = hashKey('llk_contract-test-key');
      const key = await store.keys.create({
        memberId: 12,
        display: 'llk_contract',
        hash,
        label: 'crm',
        createdAt: 1000,
        expiresAt: null,
        legacyV1: true,
      });
      assert.equal(key.teamId, 1);
      const found = await store.keys.findByDisplay('llk_contract');
      assert.equal(found.length, 1);
      assert.ok(found[0]?.hash.equals(hash));
      assert.equal(found[0]?.role, 'member');
      assert.ok((await store.keys.list(12)).some((k) => k.id === key.id && k.legacyV1));
      assert.equal(await store.keys.revoke(key.id, 2000), true);
      assert.equal(await store.keys.revoke(key.id, 3000), false);
      assert.equal((await store.keys.findByDisplay('llk_contract'))[0]?.revokedAt, 2000);
    });

    test('an import that throws leaves nothing behind', async () => {
      const before = await collect(store, { teamId: 1 }, { start: 0, end: null }, 100);
      await assert.rejects(
        store.importAtomically(async (writer) => {
          await writer.upsertTeam({ id: 99, name: 'Ghost', timeZone: 'UTC' });
          await writer.insertLeads([
            {
              teamId: 1,
              memberId: 11,
              id: 'ghost',
              epoch: 1,
              time: 't',
              userPid: 'p',
              kind: 'connection',
              locationShared: false,
              lat: null,
              long: null,
              fields: '{}',
              ...noText,
            },
          ]);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.deepEqual(await collect(store, { teamId: 1 }, { start: 0, end: null }, 100), before);
      assert.equal((await store.directory.maxIds()).team < 99, true);
    });

    test('a batch the database refuses fails the import (never hangs) and leaves nothing', {
      timeout: 10_000,
    }, async () => {
      const before = await collect(store, { teamId: 1 }, { start: 0, end: null }, 100);
      await assert.rejects(
        store.importAtomically(async (writer) => {
          await writer.insertLeads([
            {
              teamId: 1,
              memberId: 11,
              id: 'bad',
              epoch: Number.NaN,
              time: 't',
              userPid: 'p',
              kind: 'connection',
              locationShared: false,
              lat: null,
              long: null,
              fields: '{}',
              ...noText,
            },
          ]);
          await writer.finishLeads();
        }),
      );
      assert.deepEqual(await collect(store, { teamId: 1 }, { start: 0, end: null }, 100), before);
    });

    test('migrate is idempotent', async () => {
      const again = await store.migrate();
      assert.deepEqual(again.applied, []);
      assert.equal(again.from, again.to);
    });
  });
  describe(`a subteam's last lead, past the window of recent team leads (${engine})`, () => {
    // Team 3: 31 and 34 are members of subteam 7, 33 only its admin; 32 is outside it and has
    // SUBTEAM_WINDOW + 5 newer leads, so the subteam's last lead is not among the team's newest.
    let store: Store;
    let cleanup: () => Promise<void>;
    const team3 = [
      { type: 'team', id: 3, name: 'Three' },
      ...[31, 32, 33, 34].map((id) => ({
        type: 'member',
        id,
        teamId: 3,
        email: `m${id}@three.test`,
        pid: `p${id}`,
      })),
      { type: 'subteam', id: 7, teamId: 3, name: 'Seven', members: [31, 34], admins: [33] },
      { type: 'subteam', id: 8, teamId: 3, name: 'Quiet', members: [34], admins: [] },
    ];
    before(async () => {
      ({ store, cleanup } = await makeEngineStore(engine));
      const busy = Array.from({ length: SUBTEAM_WINDOW + 5 }, (_, i) => lead(32, `busy${i}`, 1000 + i));
      await load(store, [...people, ...team3, lead(31, 'old', 10), lead(31, 'older', 5), ...busy]);
      await load(store, [lead(33, 'admin-only', 5000)]); // newest of all, but 33 is no member
    });
    after(() => cleanup());

    test('found by the per-member seeks when the window holds none of its leads', async () => {
      assert.deepEqual(
        await store.leads.lastOfSubteam(3, 7, 33).then((l) => l && { ...l, lead: l.lead?.id }),
        { memberIsAdmin: true, lead: 'old' },
      );
      assert.deepEqual(
        await store.leads.lastOfSubteam(3, 8, 31),
        { memberIsAdmin: false, lead: null },
        'a subteam whose members have no lead',
      );
      assert.equal(await store.leads.lastOfSubteam(1, 7, 11), null, "another team's subteam");
    });

    test('found in the window once one of its members has a recent lead; ties: stored last', async () => {
      await load(store, [lead(34, 'recent', 1010), lead(31, 'tie-first', 1020), lead(34, 'tie-last', 1020)]);
      assert.equal((await store.leads.lastOfSubteam(3, 7, 31))?.lead?.id, 'tie-last');
      assert.equal((await store.leads.lastOfSubteam(3, 8, 31))?.lead?.id, 'tie-last');
    });
  });
}
