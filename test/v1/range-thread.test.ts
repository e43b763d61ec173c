import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EpochRange, RangeScope } from '../../src/leads/leads.port.js';
import { type V1Piece, v1Pieces } from '../../src/leads/v1-wire.js';
import { RANGE_BATCH } from '../../src/storage/range-thread.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { bulkInsertLeads } from '../support/bulk-leads.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * v1 ranges read and serialised on the store's range thread (src/storage/range-thread.ts;
 * docs/v1-reference.md "Long ranges"): the same bytes as the serving thread makes, read ahead
 * only as far as the reader asks, stopped when the reader goes away.
 */
const LEADS = 1_250; // 13 pieces, the last one short
const PEOPLE = [
  { type: 'team', id: 1, name: 'T' },
  { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: '1' },
  { type: 'member', id: 2, teamId: 1, email: 'b@t.test', pid: '2' },
];
const WHOLE: EpochRange = { start: 0, end: null };

async function read(pieces: AsyncIterable<V1Piece>): Promise<{ text: string; counts: number[] }> {
  let text = '';
  const counts: number[] = [];
  for await (const p of pieces) {
    text += p.text;
    counts.push(p.count);
  }
  return { text, counts };
}

/** What the serving thread would send for the same range: the store's batches, serialised here. */
const inThread = (store: Store, scope: RangeScope, range: EpochRange) =>
  read(v1Pieces(store.leads.range(scope, range, RANGE_BATCH)));

for (const engine of enginesUnderTest()) {
  describe(`v1 ranges on the range thread (${engine})`, () => {
    let made: EngineStore;
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        ...PEOPLE,
        {
          type: 'lead',
          userId: 2,
          id: 'other',
          epoch: 1_700_000_000_500,
          isLead: true,
          name: 'B "quoted" Ünïcode',
        },
      ]);
      await bulkInsertLeads(made.location, 1, LEADS);
    });
    after(() => made.cleanup());

    test('the same bytes as the serving thread makes, piece by piece, for the team and a member', async () => {
      for (const scope of [{ teamId: 1 }, { teamId: 1, memberId: 1 }, { teamId: 1, memberId: 2 }]) {
        const threaded = await read(made.store.leads.v1Range(scope, WHOLE));
        const here = await inThread(made.store, scope, WHOLE);
        assert.equal(threaded.text, here.text);
        assert.deepEqual(threaded.counts, here.counts);
        const leads = JSON.parse(`${threaded.text}]`) as { id: string }[];
        assert.equal(leads.length, scope.memberId === 2 ? 1 : scope.memberId === 1 ? LEADS : LEADS + 1);
        assert.equal(
          threaded.counts.reduce((a, b) => a + b, 0),
          leads.length,
        );
      }
    });

    test('a bounded range, and one with no lead in it: no piece at all', async () => {
      const some: EpochRange = { start: 1_700_000_010_000, end: 1_700_000_020_000 };
      const threaded = await read(made.store.leads.v1Range({ teamId: 1 }, some));
      assert.equal(threaded.text, (await inThread(made.store, { teamId: 1 }, some)).text);
      assert.equal((JSON.parse(`${threaded.text}]`) as unknown[]).length, 10);
      const none = await read(made.store.leads.v1Range({ teamId: 1 }, { start: 0, end: 1 }));
      assert.deepEqual(none.counts, []);
    });

    test('a reader that goes away stops its range; the next reads are whole, several at once', async () => {
      const it = made.store.leads.v1Range({ teamId: 1 }, WHOLE)[Symbol.asyncIterator]();
      const first = await it.next();
      assert.equal(first.done, false);
      assert.ok((first.value as V1Piece).text.startsWith('[{"id":'));
      await it.return?.();
      const [a, b, c] = await Promise.all([
        read(made.store.leads.v1Range({ teamId: 1 }, WHOLE)),
        read(made.store.leads.v1Range({ teamId: 1, memberId: 1 }, WHOLE)),
        read(made.store.leads.v1Range({ teamId: 1 }, WHOLE)),
      ]);
      assert.equal(a.text, c.text);
      assert.equal((JSON.parse(`${a.text}]`) as unknown[]).length, LEADS + 1);
      assert.equal((JSON.parse(`${b.text}]`) as unknown[]).length, LEADS);
    });

    test('a range being read when the store closes fails; it does not hang', async () => {
      const own = await makeEngineStore(engine);
      try {
        await load(own.store, PEOPLE);
        await bulkInsertLeads(own.location, 1, LEADS);
        const it = own.store.leads.v1Range({ teamId: 1 }, WHOLE)[Symbol.asyncIterator]();
        assert.equal((await it.next()).done, false);
        await own.store.close();
        // The thread is gone: what it had sent may still come, then the read fails.
        await assert.rejects(async () => {
          for (let r = await it.next(); r.done !== true; r = await it.next());
        }, /range thread/);
      } finally {
        await own.cleanup().catch(() => {});
      }
    });

    test('a lead written on the serving thread is in the next range the thread reads', async () => {
      await load(made.store, [
        { type: 'lead', userId: 2, id: 'later', epoch: 1_750_000_000_000, isLead: true },
      ]);
      const { text } = await read(made.store.leads.v1Range({ teamId: 1, memberId: 2 }, WHOLE));
      assert.deepEqual(
        (JSON.parse(`${text}]`) as { id: string }[]).map((l) => l.id),
        ['other', 'later'],
      );
    });
  });
}

describe('v1 ranges of a store in memory (no file another thread could open)', () => {
  let store: SqliteStore;
  before(async () => {
    store = SqliteStore.open(':memory:');
    await store.migrate();
    await load(store, [
      ...PEOPLE,
      ...Array.from({ length: 250 }, (_, i) => ({
        type: 'lead',
        userId: 1,
        id: `m${i}`,
        epoch: 1_700_000_000_000 + i,
        isLead: true,
      })),
    ]);
  });
  after(() => store.close());

  test('are read and serialised on the serving thread, the same way', async () => {
    const here = await read(store.leads.v1Range({ teamId: 1 }, WHOLE));
    assert.deepEqual(here.counts, [100, 100, 50]);
    const leads = JSON.parse(`${here.text}]`) as { id: string }[];
    assert.deepEqual(
      leads.map((l) => l.id),
      Array.from({ length: 250 }, (_, i) => `m${i}`),
    );
  });
});
