import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { CursorCodec } from '../../src/leads/cursor.js';
import type { V2Lead } from '../../src/schemas/v2.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, get, legacyIds, post, V2 } from './client.js';
import { asSignedCursor, cursorBytes } from './legacy-cursor.js';
import { at, buildSearchFixture, M, type SearchFixture } from './search-fixture.js';

interface ChangesPage {
  leads: V2Lead[];
  nextCursor: string | null;
  pollCursor: string;
}

async function changes(
  app: FastifyInstance,
  key: string,
  cursor?: string,
  limit?: number,
): Promise<ChangesPage> {
  const q = new URLSearchParams();
  if (cursor !== undefined) q.set('cursor', cursor);
  if (limit !== undefined) q.set('limit', String(limit));
  const res = await get(app, `${V2}/changes${q.size > 0 ? `?${q}` : ''}`, key);
  return assertV2Ok(res).data as ChangesPage;
}

/** Follows the feed from `cursor` until it is caught up; returns the leads and where to poll next. */
async function drain(app: FastifyInstance, key: string, cursor?: string, limit = 2) {
  const leads: V2Lead[] = [];
  let page = await changes(app, key, cursor, limit);
  for (;;) {
    leads.push(...page.leads);
    if (page.nextCursor === null) return { leads, poll: page.pollCursor };
    page = await changes(app, key, page.nextCursor, limit);
  }
}

for (const engine of enginesUnderTest()) {
  describe(`v2 lead changes [${engine}]`, () => {
    let fx: SearchFixture;
    before(async () => {
      fx = await buildSearchFixture(engine);
    });
    after(async () => fx.cleanup());

    it('lists what the caller may see in storage order, not capture order', async () => {
      await eventually(async () => assert.equal((await drain(fx.app, fx.key.admin)).leads.length, 5));
      assert.deepEqual(legacyIds((await drain(fx.app, fx.key.admin)).leads), ['a1', 'a2', 'a3', 'a4', 'a5']);
      assert.deepEqual(legacyIds((await drain(fx.app, fx.key.mia)).leads), ['a1', 'a2']);
      assert.deepEqual(legacyIds((await drain(fx.app, fx.key.subAdmin)).leads), ['a1', 'a2', 'a3', 'a4']);
      assert.deepEqual(legacyIds((await drain(fx.app, fx.key.outsider)).leads), ['b1']);
    });

    it('a lead uploaded late with an old capture time comes after everything stored before it', async () => {
      const { poll } = await drain(fx.app, fx.key.admin);
      // Scanned "yesterday", uploaded now: a time-window poller on v1 would already be past it.
      await load(
        fx.store,
        [{ type: 'lead', userId: M.mia, id: 'late', epoch: at(-86_400), isScan: true }],
        'late.ndjson',
      );
      const created = await post(fx.app, V2, fx.key.max, {
        leadSource: 'QR_CODE_SCAN',
        captureDatetime: new Date(at(-3600)).toISOString(),
        systemFields: { fullName: 'Late Too' },
      });
      const made = (assertV2Ok(created, 201).data as V2Lead).legacyLeadId;
      const next = await eventually(async () => {
        const got = await drain(fx.app, fx.key.admin, poll);
        assert.deepEqual(legacyIds(got.leads), ['late', made]);
        return got;
      });
      const all = legacyIds((await drain(fx.app, fx.key.admin, undefined, 100)).leads);
      assert.deepEqual(all, ['a1', 'a2', 'a3', 'a4', 'a5', 'late', made]);
      // Caught up: polling again gives nothing new, and the poll cursor stays usable.
      const again = await changes(fx.app, fx.key.admin, next.poll);
      assert.deepEqual(again.leads, []);
      assert.equal(again.nextCursor, null);
      assert.equal(typeof again.pollCursor, 'string');
    });

    it('limit and cursor are checked; a cursor of another team is refused', async () => {
      for (const limit of ['0', '1001', 'x', '']) {
        const res = await get(fx.app, `${V2}/changes?limit=${limit}`, fx.key.admin);
        assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['limit']);
      }
      const theirs = (await changes(fx.app, fx.key.outsider)).pollCursor;
      const res = await get(fx.app, `${V2}/changes?cursor=${encodeURIComponent(theirs)}`, fx.key.admin);
      assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['cursor']);
    });

    it('feed cursors are sealed; old signed ones still continue the feed, for their team only', async () => {
      const first = await eventually(async () => {
        const page = await changes(fx.app, fx.key.admin, undefined, 2);
        assert.ok(page.nextCursor !== null);
        return page;
      });
      const cursor = first.nextCursor as string;
      // The position (seq; on PostgreSQL txid:seq) is there for the store's key, not for the eye.
      const position = new CursorCodec(await fx.store.secret('v2-cursor')).open(cursor).p as string;
      const shown = cursorBytes(cursor);
      const parts = position.split(':').filter((part) => part.length >= 4); // short ones match by chance
      for (const hidden of [JSON.stringify(position), '"p":', ...parts]) {
        assert.ok(!shown.includes(hidden), `${hidden} readable in ${cursor}`);
      }
      const old = await asSignedCursor(fx.store, cursor);
      const viaOld = await drain(fx.app, fx.key.admin, old, 100);
      const viaSealed = await drain(fx.app, fx.key.admin, cursor, 100);
      assert.ok(viaOld.leads.length > 0);
      assert.deepEqual(legacyIds(viaOld.leads), legacyIds(viaSealed.leads));
      assert.ok(!legacyIds(viaOld.leads).some((id) => legacyIds(first.leads).includes(id)), 'goes on after');
      const theirs = await asSignedCursor(fx.store, (await changes(fx.app, fx.key.outsider)).pollCursor);
      const res = await get(fx.app, `${V2}/changes?cursor=${encodeURIComponent(theirs)}`, fx.key.admin);
      assertInvalidParams(assertV2Problem(res, 400, 'invalid-parameters'), ['cursor']);
    });
  });
}
