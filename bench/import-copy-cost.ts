/**
 * What copying an import's prepared records between its threads costs: the batches the worker
 * answers with (import-prepare.ts) for a seed file of `leads` leads, put through
 * `v8.serialize` and `v8.deserialize` (what `postMessage` does to them), as sent to SQLite now
 * (padded words, no folded text) and with each lead's folded text sent too (as before ad366d0).
 * A control copies the first set's leads made the way the second set's are (object spreads),
 * so the second's figures are not its objects' shape. Alternated rounds, medians.
 *
 *   node --import tsx bench/import-copy-cost.ts [leads] [rounds]
 */
import { deserialize, serialize } from 'node:v8';
import { seedRecords } from '../src/demo/seed.js';
import { LineSplitter } from '../src/import/lines.js';
import { type PreparedBatch, RecordPreparer } from '../src/import/prepare.js';
import { median } from './lib.js';

const leads = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 5);
const input = Buffer.from(
  `${[...seedRecords({ teams: 1, membersPerTeam: 1000, leads, seed: 'bench' })].join('\n')}\n`,
);
const PIECE = 64 * 1024;

/** The file's batches as the worker prepares them, a piece of PIECE bytes at a time. */
function prepared(paddedWords: boolean): PreparedBatch[] {
  const preparer = new RecordPreparer({
    captureToleranceMs: 86_400_000,
    importMaxRecordBytes: 1 << 20,
    now: Date.now(),
    paddedWords,
  });
  const splitter = new LineSplitter(1 << 20);
  const batches: PreparedBatch[] = [];
  for (let at = 0; at < input.length; at += PIECE)
    batches.push(preparer.lines('f', splitter.push(input.subarray(at, at + PIECE))));
  batches.push(preparer.lines('f', splitter.end()));
  return batches;
}

const now = prepared(true);
const folded = prepared(false);
// Each lead as before: its padded words and its folded text.
const before = now.map((b, i) => ({
  ...b,
  records: b.records.map((r, j) => {
    const f = folded[i]!.records[j]!;
    return r.type === 'lead' && f.type === 'lead' ? { ...r, text: f.text } : r;
  }),
}));

const times: Record<string, { out: number[]; back: number[]; mb: number }> = {
  'words only (now)': { out: [], back: [], mb: 0 },
  'words and folded text (before)': { out: [], back: [], mb: 0 },
  'words only, spread (control)': { out: [], back: [], mb: 0 },
};
const sets: [string, PreparedBatch[]][] = [
  ['words only (now)', now],
  ['words and folded text (before)', before],
  ['words only, spread (control)', now.map((b) => ({ ...b, records: b.records.map((r) => ({ ...r })) }))],
];
for (let round = 1; round <= rounds; round++) {
  for (const [name, batches] of round % 2 === 0 ? [...sets].reverse() : sets) {
    let out = 0;
    let back = 0;
    let bytes = 0;
    for (const b of batches) {
      const t0 = performance.now();
      const copy = serialize(b);
      const t1 = performance.now();
      deserialize(copy);
      back += performance.now() - t1;
      out += t1 - t0;
      bytes += copy.length;
    }
    const t = times[name]!;
    t.out.push(out);
    t.back.push(back);
    t.mb = bytes / 1e6;
  }
}
console.log(`${leads} leads, medians of ${rounds} alternated rounds:`);
for (const [name, t] of Object.entries(times))
  console.log(
    `  ${name}: serialise ${median(t.out).toFixed(0)} ms (the worker), deserialise ${median(t.back).toFixed(0)} ms (the importing thread), ${t.mb.toFixed(1)} MB`,
  );
