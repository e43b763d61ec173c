/**
 * An import prepares its records in a worker thread (import-feed.ts) or in its own thread: the
 * store it leaves, the summary and the first error it reports must be the same either way.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { seedRecords } from '../../src/demo/seed.js';
import { ImportError } from '../../src/import/import-error.js';
import type { PreparedBatch, PreparedLead } from '../../src/import/prepare.js';
import {
  type ImportSource,
  preparedBatches,
  WORKER_FROM_BYTES,
  workerPlan,
} from '../../src/io/import/feed.js';
import { importRecords } from '../../src/io/import/run-import.js';
import { hasEmail, paddedWords as padded } from '../../src/leads/text.js';
import { dumpStore } from '../cli/store-dump.js';
import { makeStore } from '../support/helpers.js';

const NOW = Date.parse('2026-11-01T00:00:00Z');
const limits = { captureToleranceMs: 86_400_000, importMaxRecordBytes: 4096, now: () => NOW };

/** `text` as a stream of small pieces, so lines straddle the pieces the worker is handed. */
function source(text: string, name = 'in.ndjson', piece = 4000): ImportSource {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += piece) pieces.push(text.slice(i, i + piece));
  return { name, open: () => Readable.from(pieces) };
}

const lines = (records: object[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** The store an import leaves, without what is drawn anew on each run (uuids, write times). */
async function importedBoth(
  text: string,
): Promise<Record<'thread' | 'worker', { result: unknown; dump: Record<string, unknown[]> }>> {
  const out: Record<string, { result: unknown; dump: Record<string, unknown[]> }> = {};
  for (const worker of [false, true]) {
    const { store, path, cleanup } = await makeStore();
    try {
      const result = await importRecords(store, [source(text)], { limits, worker }).catch((err: unknown) => {
        assert.ok(err instanceof ImportError, String(err));
        return { error: err.message };
      });
      const dump = dumpStore(path);
      dump.leads = dump.leads!.map((l) => {
        const { uuid: _u, created_at: _c, ...rest } = l as Record<string, unknown>;
        return rest;
      });
      out[worker ? 'worker' : 'thread'] = { result, dump };
    } finally {
      await cleanup();
    }
  }
  return out as Record<'thread' | 'worker', { result: unknown; dump: Record<string, unknown[]> }>;
}

const team = (id: number, timeZone = 'UTC') => ({ type: 'team', id, name: `T${id}`, timeZone });
const member = (id: number, teamId: number) => ({
  type: 'member',
  id,
  teamId,
  email: `m${id}@example.test`,
  pid: `p${id}`,
});
const lead = (id: string, userId: number, extra: object = {}) => ({
  type: 'lead',
  id,
  userId,
  epoch: NOW - 3_600_000,
  isLead: true,
  name: `Lead ${id}`,
  ...extra,
});

describe('import in a worker thread', () => {
  test('3,000 seeded records: the same store and summary as in one thread', async () => {
    const text = `${[...seedRecords({ teams: 3, membersPerTeam: 4, leads: 3000, seed: 'worker', now: NOW })].join('\n')}\n`;
    const { thread, worker } = await importedBoth(text);
    assert.equal((thread.result as { leads: number }).leads, 3000);
    assert.deepEqual(worker, thread);
  });

  test('leads before their member, labels in a time zone changed later, a member who moves team', async () => {
    const text = lines([
      team(1, 'Europe/Berlin'),
      member(1, 1),
      lead('a', 1), // labelled in Berlin, written at once
      lead('b', 2), // member 2 comes later: this and every later lead wait for the end
      lead('c', 1), // prepared with a Berlin label; at the end team 1 is in Tokyo
      team(1, 'Asia/Tokyo'),
      team(2, 'America/New_York'),
      member(2, 2),
      member(1, 2), // moves to team 2, and takes its written leads along
      lead('d', 1, { time: '2026-10-31 22:00:00' }),
    ]);
    const { thread, worker } = await importedBoth(text);
    assert.deepEqual(worker, thread);
    const byId = new Map(thread.dump.leads!.map((l) => [(l as { lead_id: string }).lead_id, l]));
    const time = (id: string) => (byId.get(id) as { time: string }).time;
    assert.equal(time('a'), '2026-11-01 00:00:00', 'Berlin');
    assert.equal(time('c'), '2026-10-31 19:00:00', 'completed at the end, in team 2 (New York)');
    assert.equal(time('d'), '2026-10-31 22:00:00');
  });

  test('the first error in input order wins, whichever half finds it; nothing is stored', async () => {
    const text = lines([
      team(1),
      member(1, 1),
      lead('a', 1),
      lead('b', 1, { userEmail: 'someone@else.test' }), // found by the writing half
      lead('c', 1, { lat: '91' }), // found by the preparing half
    ]).concat('{not json\n');
    const { thread, worker } = await importedBoth(text);
    assert.deepEqual(worker, thread);
    assert.deepEqual(thread.result, {
      error: `in.ndjson:4: userEmail "someone@else.test" is not member 1's e-mail`,
    });
    assert.equal(thread.dump.leads!.length, 0);
  });

  test('a record that does not fit its schema: the same sentence in either thread', async () => {
    const cases: [object, string][] = [
      [lead('x', 1, { views: 'many' }), 'views must be numeric text such as "12" or "3.5" (or "")'],
      [lead('x', 1, { userid: 1 }), 'unknown field "userid" — did you mean "userId"?'],
      [member(2, 0), 'teamId must be at least 1'],
    ];
    for (const [bad, sentence] of cases) {
      const { thread, worker } = await importedBoth(
        lines([team(1), member(1, 1), lead('a', 1), bad, lead('b', 1)]),
      );
      assert.deepEqual(worker, thread);
      assert.deepEqual(thread.result, { error: `in.ndjson:4: ${sentence}` });
      assert.equal(thread.dump.leads!.length, 0);
    }
  });

  test('an error the preparing half finds late, after many pieces, and a line over the limit', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => lead(`l${i}`, 1));
    for (const bad of ['{"type":"lead"', `{"type":"lead","id":"${'x'.repeat(5000)}"}`]) {
      const text = `${lines([team(1), member(1, 1), ...many])}${bad}\n${lines([lead('after', 1)])}`;
      const { thread, worker } = await importedBoth(text);
      assert.deepEqual(worker, thread);
      assert.match(String((thread.result as { error: string }).error), /^in\.ndjson:2003: /);
      assert.equal(thread.dump.leads!.length, 0);
    }
  });

  test('a source that fails while read: cannot read the file, in either thread', async () => {
    for (const worker of [false, true]) {
      const { store, cleanup } = await makeStore();
      try {
        const failing: ImportSource = {
          name: 'gone.ndjson',
          open: () =>
            Readable.from(
              (async function* () {
                yield `${JSON.stringify(team(1))}\n`;
                throw Object.assign(new Error('EIO'), { syscall: 'read', code: 'EIO' });
              })(),
            ),
        };
        await assert.rejects(importRecords(store, [failing], { limits, worker }), {
          message: 'gone.ndjson: cannot read the file (input/output error)',
        });
        assert.equal((await store.directory.maxIds()).team, 0);
      } finally {
        await cleanup();
      }
    }
  });

  test('a worker started part-way takes over at the end of a line, numbering lines on', async () => {
    const text = `${[...seedRecords({ teams: 2, membersPerTeam: 3, leads: 2000, seed: 'handover', now: NOW })].join('\n')}\n`;
    const settings = { ...limits, now: NOW, paddedWords: true };
    const all = async (startAt: number) => {
      const batches: PreparedBatch[] = [];
      for await (const b of preparedBatches([source(text)], settings, { startAt, wait: true }))
        batches.push(b);
      return batches;
    };
    const [here, handedOver] = await Promise.all([all(Number.POSITIVE_INFINITY), all(100_000)]);
    assert.ok(here.every((b) => b.worker === undefined));
    const first = handedOver.findIndex((b) => b.worker === true);
    assert.ok(first > 0, 'the first pieces were prepared here, the rest in the worker');
    assert.ok(
      handedOver.slice(first).every((b) => b.worker === true),
      'the worker keeps what it took',
    );
    const records = (bs: PreparedBatch[]) => bs.flatMap((b) => b.records);
    assert.equal(
      records(here).length,
      2000 + 2 + 6 + records(here).filter((r) => r.type === 'subteam').length,
    );
    assert.deepEqual(records(handedOver), records(here));
    const bytes = (bs: PreparedBatch[]) => bs.reduce((n, b) => n + b.bytes, 0);
    assert.equal(bytes(handedOver), bytes(here));
  });

  test('a store that indexes padded words (SQLite) is sent them and whether there is an e-mail, not the folded text, from either thread', async () => {
    const text = `${[...seedRecords({ teams: 1, membersPerTeam: 2, leads: 50, seed: 'words', now: NOW })].join('\n')}\n`;
    for (const startAt of [Number.POSITIVE_INFINITY, 0]) {
      const prepared = async (paddedWords: boolean) => {
        const leads: PreparedLead[] = [];
        for await (const b of preparedBatches(
          [source(text)],
          { ...limits, now: NOW, paddedWords },
          { startAt, wait: true },
        ))
          for (const r of b.records) if (r.type === 'lead') leads.push(r);
        assert.equal(leads.length, 50);
        return leads;
      };
      const folded = await prepared(false);
      const withWords = await prepared(true);
      for (const [i, l] of folded.entries()) {
        const text = l.text;
        assert.ok(text !== null);
        assert.ok(text.some((t) => t !== ''));
        assert.equal(l.words, null);
        assert.equal(l.hasEmail, hasEmail(text));
        const w = withWords[i]!;
        assert.equal(w.text, null);
        assert.deepEqual(w.words, text.map(padded));
        // Otherwise the same lead.
        assert.deepEqual({ ...w, text, words: null }, l);
      }
      // Both answers of hasEmail occur, so the comparison above can tell them apart.
      assert.deepEqual(new Set(withWords.map((w) => w.hasEmail)), new Set([true, false]));
    }
  });

  test('by default: files of WORKER_FROM_BYTES or more all in the worker, input of unknown size from once that much is read', () => {
    const open = () => Readable.from([]);
    const never = { startAt: Number.POSITIVE_INFINITY, wait: false };
    assert.deepEqual(workerPlan([{ name: 'a', size: WORKER_FROM_BYTES - 1, open }]), never);
    assert.deepEqual(
      workerPlan([
        { name: 'a', size: WORKER_FROM_BYTES / 2, open },
        { name: 'b', size: WORKER_FROM_BYTES / 2, open },
      ]),
      { startAt: 0, wait: true },
    );
    assert.deepEqual(workerPlan([{ name: '-', open }]), { startAt: WORKER_FROM_BYTES, wait: false });
    assert.deepEqual(workerPlan([{ name: '-', open }], true), { startAt: 0, wait: true });
    assert.deepEqual(workerPlan([{ name: 'a', size: WORKER_FROM_BYTES, open }], false), never);
  });
});
