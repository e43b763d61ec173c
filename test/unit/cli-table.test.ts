import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayWidth, table } from '../../src/cli/table.js';
import { refusedOnV1 } from '../../src/cli/v1-status.js';

/** The CLI's listings for people (issue 37): columns line up in a terminal, whatever the script. */
describe('cli table', () => {
  test('a CJK character takes two columns, a combining mark none, an emoji two', () => {
    assert.equal(displayWidth('Team A'), 6);
    assert.equal(displayWidth('東京営業部'), 10);
    assert.equal(displayWidth('서울'), 4);
    assert.equal(displayWidth('ｶﾀｶﾅ'), 4, 'halfwidth katakana: one column each');
    assert.equal(displayWidth('Café'), 4);
    assert.equal(displayWidth('Cafe\u0301'), 4, 'e and a combining accent: one column');
    assert.equal(displayWidth('🚀 Launch'), 9);
  });

  test('columns line up after CJK names', () => {
    const out = table(
      ['id', 'name', 'members'],
      [
        [1, '東京営業部', 3],
        [2, 'Sales', 12],
      ],
    ).split('\n');
    // Where the last column starts, in terminal columns, is the same on every line.
    const starts = out.map((line) => displayWidth(line.slice(0, line.search(/\S+$/))));
    assert.deepEqual(new Set(starts).size, 1, out.join('\n'));
  });

  test('v1 status: keys refused on v1, singular and plural', () => {
    assert.equal(refusedOnV1([5]), '1 key tried v1 and was refused on every call: key 5');
    assert.equal(refusedOnV1([5, 7]), '2 keys tried v1 and were refused on every call: keys 5, 7');
  });
});
