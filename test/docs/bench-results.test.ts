import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/**
 * bench/RESULTS.md is written by `npm run bench`: the run's tables, then bench/misses.md as it is
 * (bench/harness/report.ts `writeResults`). A section written by hand into RESULTS.md alone is
 * lost at the next full run: each goes into misses.md too.
 */
test('bench/RESULTS.md ends with bench/misses.md: no hand-written section lives in RESULTS.md alone', () => {
  const results = read('bench/RESULTS.md');
  const misses = read('bench/misses.md');
  const alone = results.split('\n').filter((line) => /^#{2,3} /.test(line) && !misses.includes(`${line}\n`));
  assert.ok(
    results.endsWith(misses),
    `RESULTS.md does not end with misses.md; headings in RESULTS.md alone (the run's own are the first): ${alone.join(' | ')}`,
  );
});
