import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_EPOCH, parseRange, parseSubteamId } from '../../src/http/v1/params.js';
import { AppError } from '../../src/shared/errors.js';

function reasons(fn: () => unknown): Record<string, string> {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'invalid-parameters');
    const params = err.extensions.invalid_params as { name: string; reason: string }[];
    return Object.fromEntries(params.map((p) => [p.name, p.reason]));
  }
  assert.fail('expected invalid parameters');
}

describe('parseRange (C3)', () => {
  test('start alone, start and end, end == start, leading zeros', () => {
    assert.deepEqual(parseRange({ start: '0' }), { start: 0, end: null });
    assert.deepEqual(parseRange({ start: '10', end: '20' }), { start: 10, end: 20 });
    assert.deepEqual(parseRange({ start: '7', end: '7' }), { start: 7, end: 7 });
    assert.deepEqual(parseRange({ start: '0010' }), { start: 10, end: null });
    assert.deepEqual(parseRange({ start: String(MAX_EPOCH) }), { start: MAX_EPOCH, end: null });
  });

  const badStarts: [string, unknown][] = [
    ['missing', undefined],
    ['empty', ''],
    ['repeated', ['1', '2']],
    ['fractional', '1.5'],
    ['negative', '-1'],
    ['plus sign', '+1'],
    ['exponent', '1e3'],
    ['hex', '0x10'],
    ['words', 'now'],
    ['spaces', ' 1'],
    ['too large', String(MAX_EPOCH + 1)],
    ['far too large', '9'.repeat(40)],
  ];
  for (const [name, start] of badStarts) {
    test(`start ${name} → 400 naming start`, () => {
      const query = start === undefined ? {} : { start };
      assert.ok(reasons(() => parseRange(query)).start);
    });
  }

  test('end < start → 400 naming end; both bad → both named', () => {
    assert.match(reasons(() => parseRange({ start: '5', end: '4' })).end ?? '', /less than start/);
    assert.deepEqual(Object.keys(reasons(() => parseRange({ start: 'x', end: 'y' }))).sort(), [
      'end',
      'start',
    ]);
  });
});

describe('parseSubteamId (C3)', () => {
  test('a positive decimal integer', () => {
    assert.equal(parseSubteamId({ subTeamId: '3' }), 3);
    assert.equal(parseSubteamId({ subTeamId: '003' }), 3);
  });
  test('beyond any stored id: a number no subteam has, so the answer is 404, not 400', () => {
    assert.ok(parseSubteamId({ subTeamId: '9'.repeat(30) }) > Number.MAX_SAFE_INTEGER);
  });
  for (const [name, value] of [
    ['missing', undefined],
    ['zero', '0'],
    ['negative', '-1'],
    ['empty', ''],
    ['text', 'abc'],
    ['repeated', ['1', '1']],
    ['fraction', '1.0'],
  ] as [string, unknown][]) {
    test(`${name} → 400`, () => {
      assert.ok(reasons(() => parseSubteamId(value === undefined ? {} : { subTeamId: value })).subTeamId);
    });
  }
});
