import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuid7 } from '../../src/shared/uuid7.js';

test('uuid7: RFC 9562 version 7, variant 10, time-ordered, unique', () => {
  const a = uuid7(1_767_225_600_000);
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(a.slice(0, 13).replace('-', ''), (1_767_225_600_000).toString(16).padStart(12, '0'));
  assert.ok(uuid7(1_767_225_600_001) > a, 'a later millisecond sorts after');
  assert.equal(new Set(Array.from({ length: 1000 }, () => uuid7(5))).size, 1000);
});
