import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CursorCodec } from '../../src/leads/cursor.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { keyFor, load, makeApp } from '../support/helpers.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, legacyIds, post, search, searchAll, V2 } from './client.js';
import { asSignedCursor, cursorBytes } from './legacy-cursor.js';

/** One millisecond shared by thousands of leads: only the keyset's second part tells them apart. */
const MS = Date.parse('2025-06-01T12:00:00.123Z');
const TEAM_A = 601;
const TEAM_B = 602;
const ADMIN_A = 6011;
const MEMBER_A = 6012;
const ADMIN_B = 6021;
const TIED = 3000;

function records(): object[] {
  const out: object[] = [
    { type: 'team', id: TEAM_A, name: 'Paging A' },
    { type: 'team', id: TEAM_B, name: 'Paging B' },
    { type: 'member', id: ADMIN_A, teamId: TEAM_A, email: 'admin@a.test', role: 'admin', pid: 'a1' },
    { type: 'member', id: MEMBER_A, teamId: TEAM_A, email: 'member@a.test', pid: 'a2' },
    { type: 'member', id: ADMIN_B, teamId: TEAM_B, email: 'admin@b.test', role: 'admin', pid: 'b1' },
  ];
  for (let i = 0; i < TIED; i++) {
    out.push({
      type: 'lead',
      userId: i % 3 === 0 ? ADMIN_A : MEMBER_A,
      id: `t${i}`,
      epoch: MS,
      isLead: true,
    });
  }
  // A spread of other times around the tie, stored after it.
  for (let i = 0; i < 300; i++) {
    out.push({
      type: 'lead',
      userId: MEMBER_A,
      id: `s${i}`,
      epoch: MS + (i - 150) * 1000 + 500,
      isScan: true,
    });
  }
  out.push({ type: 'lead', userId: ADMIN_B, id: 'b0', epoch: MS, isLead: true });
  return out;
}

for (const engine of enginesUnderTest()) {
  describe(`v2 search paging [${engine}]`, () => {
    let store: Store;
    let app: FastifyInstance;
    let cleanup: () => Promise<void>;
    let keyA: string;
    let keyB: string;
    before(async () => {
      const made = await makeEngineStore(engine);
      store = made.store;
      cleanup = made.cleanup;
      await load(store, records());
      keyA = await keyFor(store, ADMIN_A);
      keyB = await keyFor(store, ADMIN_B);
      app = await makeApp(store);
    });
    after(async () => {
      await app.close();
      await cleanup();
    });

    const team = { filters: { teamId: TEAM_A } };

    it('returns every one of thousands of leads sharing one millisecond once, in both directions', async () => {
      for (const direction of ['DESC', 'ASC'] as const) {
        const body = {
          filters: {
            teamId: TEAM_A,
            startTime: '2025-06-01T12:00:00.123Z',
            endTime: '2025-06-01T12:00:00.124Z',
          },
          sort: { field: 'timestamp', direction },
          limit: 128,
        };
        const got = legacyIds(await searchAll(app, keyA, body));
        assert.equal(got.length, TIED);
        assert.equal(new Set(got).size, TIED, 'no duplicate');
        const stored = Array.from({ length: TIED }, (_, i) => `t${i}`);
        // Equal times come in storage order (ASC) or its reverse (DESC).
        assert.deepEqual(got, direction === 'ASC' ? stored : stored.reverse());
      }
    });

    it('nextCursor is null only on the last page, even when the leads fill the pages exactly', async () => {
      const body = {
        filters: { assignedMemberIds: [MEMBER_A], leadSource: ['BUSINESS_CARD_SCAN'] },
        limit: 100,
      };
      const sizes: (number | null)[][] = [];
      const all = await searchAll(app, keyA, body, async (page) => {
        sizes.push([page.leads.length, page.nextCursor === null ? null : 1]);
      });
      assert.equal(all.length, 300);
      assert.deepEqual(sizes, [
        [100, 1],
        [100, 1],
        [100, null],
      ]);
      const one = await search(app, keyA, { ...body, limit: 1000 });
      assert.equal(one.leads.length, 300);
      assert.equal(one.nextCursor, null);
    });

    it('no duplicate and no gap among stored leads while new ones are created between pages', async () => {
      const before = legacyIds(await searchAll(app, keyA, { ...team, limit: 1000 }));
      let created = 0;
      const seen = await searchAll(app, keyA, { ...team, limit: 250 }, async (_page, n) => {
        // Between pages: new leads at the tie, older and newer than every stored one.
        for (const offset of [0, -10_000_000, 10_000_000, n * 7]) {
          const res = await post(app, V2, keyA, {
            leadSource: 'PROFILE_CONNECTION',
            captureDatetime: new Date(MS + offset).toISOString(),
            systemFields: { fullName: `Inserted ${n} ${offset}` },
          });
          assertV2Ok(res, 201);
          created++;
        }
      });
      const ids = legacyIds(seen);
      assert.equal(new Set(ids).size, ids.length, 'no lead twice');
      const seenSet = new Set(ids);
      for (const id of before) assert.ok(seenSet.has(id), `stored lead ${id} not skipped`);
      assert.ok(created > 0);
    });

    it('refuses a cursor replayed by another team, with other filters or sort, or altered', async () => {
      const first = await search(app, keyA, { ...team, limit: 10 });
      const cursor = first.nextCursor;
      assert.ok(cursor !== null);
      const refusals: [string, unknown][] = [
        [keyB, { filters: { teamId: TEAM_B }, cursor }],
        [keyA, { filters: { teamId: TEAM_A, hasEmail: false }, cursor }],
        [keyA, { ...team, sort: { field: 'timestamp', direction: 'ASC' }, cursor }],
        [keyA, { filters: { assignedMemberIds: [MEMBER_A] }, cursor }],
        [keyA, { ...team, cursor: `${cursor.slice(0, -2)}AA` }],
        [keyA, { ...team, cursor: 'bm90IGEgY3Vyc29y' }],
      ];
      for (const [key, body] of refusals) {
        const p = assertV2Problem(await post(app, `${V2}/search`, key, body), 400, 'invalid-parameters');
        assertInvalidParams(p, ['/cursor']);
      }
      // The same filters with another page size go on where the cursor points.
      const next = await search(app, keyA, { ...team, limit: 5, cursor });
      assert.equal(next.leads.length, 5);
      assert.ok(!legacyIds(first.leads).includes(next.leads[0]?.legacyLeadId ?? ''));
    });

    it('cursors are sealed (no position readable, new each time) and old signed ones still go on', async () => {
      const body = { ...team, limit: 10 };
      const first = await search(app, keyA, body);
      const cursor = first.nextCursor;
      assert.ok(cursor !== null);
      const again = await search(app, keyA, body);
      assert.deepEqual(legacyIds(again.leads), legacyIds(first.leads));
      assert.notEqual(again.nextCursor, cursor, 'the same page, a fresh cursor');
      // What the cursor carries, read with the store's key: none of it shows without the key.
      const position = new CursorCodec(await store.secret('v2-cursor')).open(cursor).p as {
        epoch: number;
        seq: number;
      };
      assert.equal(position.epoch, Date.parse(first.leads.at(-1)?.captureDatetime ?? ''));
      const shown = cursorBytes(cursor);
      for (const hidden of [JSON.stringify(position), String(position.epoch), `"seq":${position.seq}`]) {
        assert.ok(!shown.includes(hidden), `${hidden} readable in ${cursor}`);
      }
      // A cursor issued before issue 21 (signed, readable) continues the same search.
      const old = await asSignedCursor(store, cursor);
      const viaOld = await search(app, keyA, { ...body, cursor: old });
      const viaSealed = await search(app, keyA, { ...body, cursor });
      assert.equal(viaOld.leads.length, 10);
      assert.deepEqual(legacyIds(viaOld.leads), legacyIds(viaSealed.leads));
      // ... and stays bound to its team and filters.
      for (const [key, other] of [
        [keyB, { filters: { teamId: TEAM_B }, cursor: old }],
        [keyA, { filters: { teamId: TEAM_A, hasEmail: false }, cursor: old }],
      ] as const) {
        const p = assertV2Problem(await post(app, `${V2}/search`, key, other), 400, 'invalid-parameters');
        assertInvalidParams(p, ['/cursor']);
      }
    });
  });
}
