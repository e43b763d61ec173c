import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuid7, uuid7s } from '../../src/shared/uuid7.js';

test('uuid7: RFC 9562 version 7, variant 10, time-ordered, unique', () => {
  const a = uuid7(1_767_225_600_000);
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(a.slice(0, 13).replace('-', ''), (1_767_225_600_000).toString(16).padStart(12, '0'));
  assert.ok(uuid7(1_767_225_600_001) > a, 'a later millisecond sorts after');
  assert.equal(new Set(Array.from({ length: 1000 }, () => uuid7(5))).size, 1000);
});

test('uuid7s: as many version 7 ids of the one millisecond, each variant digit, all different', () => {
  const at = 1_767_225_600_123;
  const ids = uuid7s(4_000, at);
  assert.equal(ids.length, 4_000);
  for (const id of ids) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(id.slice(0, 13).replace('-', ''), at.toString(16).padStart(12, '0'));
  }
  assert.equal(new Set(ids).size, 4_000);
  // Two random bits pick the variant digit: all four come up (each ~1,000 times of 4,000).
  assert.deepEqual(new Set(ids.map((id) => id[19])), new Set(['8', '9', 'a', 'b']));
  assert.deepEqual(uuid7s(0, at), []);
});
