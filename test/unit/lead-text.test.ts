import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FUZZY_THRESHOLD,
  fold,
  ftsAnyTrigram,
  leadText,
  paddedWords,
  splitName,
  trigrams,
  wordSimilarity,
} from '../../src/leads/text.js';

describe('lead text', () => {
  it('folds case, accents and compatibility forms', () => {
    assert.equal(fold('José Ñúñez'), 'jose nunez');
    assert.equal(fold('ÅNGSTRÖM'), 'angstrom');
    assert.equal(fold('ﬁne'), 'fine');
  });

  it('splits a full name into first word and the rest', () => {
    assert.deepEqual(splitName('  Ana María  Ruiz '), { first: 'Ana', last: 'María Ruiz' });
    assert.deepEqual(splitName('Cher'), { first: 'Cher', last: null });
    assert.deepEqual(splitName('   '), { first: null, last: null });
  });

  it('makes trigrams the way pg_trgm does: two spaces before each word, one after', () => {
    assert.deepEqual(trigrams('jon'), ['  j', ' jo', 'jon', 'on ']);
    assert.deepEqual(trigrams('a-b'), ['  a', ' a ', '  b', ' b ']);
  });

  // Values computed by PostgreSQL 15 pg_trgm word_similarity(a, b).
  const PG: [string, string, number][] = [
    ['jonh', 'john smith', 0.4],
    ['word', 'two words', 0.8],
    ['smyth', 'john smith', 1 / 3],
    ['ana', 'hannah banana', 0.5],
    ['katherine', 'catherine', 0.7],
    ['acme', 'acme corporation', 1],
    ['xyz', 'john smith', 0],
  ];
  for (const [value, field, expected] of PG) {
    it(`word similarity of ${JSON.stringify(value)} in ${JSON.stringify(field)} is ${expected}`, () => {
      assert.ok(
        Math.abs(wordSimilarity(value, field) - expected) < 1e-9,
        String(wordSimilarity(value, field)),
      );
    });
  }

  it('tolerates one typo in a short name at the FUZZY threshold, not an unrelated name', () => {
    for (const [typo, name] of [
      ['jonh', 'john'],
      ['smyth', 'smith'],
      ['micheal', 'michael'],
      ['garcia', 'garcía'],
    ]) {
      assert.ok(wordSimilarity(fold(typo!), fold(name!)) >= FUZZY_THRESHOLD, `${typo} ~ ${name}`);
    }
    assert.ok(wordSimilarity('mike', 'mark') < FUZZY_THRESHOLD);
    assert.ok(wordSimilarity('bob', 'robert') < FUZZY_THRESHOLD);
  });

  it('pads stored words so padded query trigrams find them, and quotes FTS5 phrases', () => {
    assert.equal(paddedWords('john smith'), '  john   smith ');
    // Quotes split words (not a letter or digit), so no phrase ever holds one.
    assert.equal(ftsAnyTrigram('jo"n'), '"  j" OR " jo" OR "jo " OR "  n" OR " n "');
  });

  it('takes the searchable fields from v1 members, given names over the split', () => {
    const fields = {
      name: 'José Ruiz',
      email: 'J@X.test',
      company: 'ACME',
      jobTitle: 'CTO',
      note: 'Met at FAIR',
    };
    assert.deepEqual(leadText(fields, { firstName: null, lastName: null }), [
      'jose',
      'ruiz',
      'jose ruiz',
      'j@x.test',
      'acme',
      'cto',
      'met at fair',
    ]);
    assert.deepEqual(leadText({}, { firstName: 'Ana', lastName: 'Ö' }).slice(0, 3), ['ana', 'o', '']);
  });

  it('gives each value its own similarity when checks of two values interleave', () => {
    const fields = ['john smith', 'jon smyth', 'mary jones', 'smithson'];
    const alone = (v: string): number[] => fields.map((f) => wordSimilarity(v, f));
    const [john, smyth] = [alone('john'), alone('smyth')];
    const mixed = fields.flatMap((f) => [wordSimilarity('john', f), wordSimilarity('smyth', f)]);
    assert.deepEqual(
      mixed,
      fields.flatMap((_, i) => [john[i], smyth[i]]),
    );
    assert.notDeepEqual(john, smyth);
  });
});
