import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { storableExcerpt, unstorableReason } from '../../src/shared/storable-text.js';

/**
 * Issue 36 §2: a receiver's answer is kept as storable text cut by bytes — before, a cut by
 * UTF-16 units kept up to ~3 KB in a "1 KB" record, could split a surrogate pair, and kept NUL,
 * which PostgreSQL refuses (and with it the whole batch of attempts).
 */
const anyUnits = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 0xd83d, 0xde00, 0xe9)), {
    maxLength: 200,
  })
  .map((units) => String.fromCharCode(...units));

describe('storableExcerpt', () => {
  it('is storable, within the byte budget, a prefix of the cleaned text, and as long as the budget allows', () => {
    fc.assert(
      fc.property(anyUnits, fc.integer({ min: 0, max: 300 }), (text, max) => {
        const got = storableExcerpt(text, max);
        assert.equal(unstorableReason(got), null);
        assert.ok(Buffer.byteLength(got) <= max);
        const clean = storableExcerpt(text, Number.MAX_SAFE_INTEGER);
        assert.ok(clean.startsWith(got));
        const next = clean.slice(got.length).codePointAt(0);
        if (next !== undefined)
          assert.ok(
            Buffer.byteLength(got) + Buffer.byteLength(String.fromCodePoint(next)) > max,
            'cut early',
          );
      }),
      { numRuns: 2_000 },
    );
  });

  it('replaces NUL and lone surrogates, keeps pairs and every other character', () => {
    assert.equal(storableExcerpt('a\u0000b\ud800c\udc00d😀\u0001', 100), 'a\uFFFDb\uFFFDc\uFFFDd😀\u0001');
    assert.equal(storableExcerpt('😀😀', 7), '😀');
    assert.equal(storableExcerpt('ééé', 5), 'éé');
  });
});
