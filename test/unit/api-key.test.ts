import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DISPLAY_LENGTH,
  displayPrefix,
  generateKey,
  hashesMatch,
  hashKey,
  isWellFormedKey,
} from '../../src/keys/token.js';

describe('API keys (issue 2 §5)', () => {
  test('identifiable prefix, fixed length, base62, well formed', () => {
    const key = generateKey();
    assert.match(key, /^llk_[0-9A-Za-z]{36}$/);
    assert.ok(isWellFormedKey(key));
  });

  test('at least 128 bits of randomness: 30 base62 characters, all different over many keys', () => {
    assert.ok(30 * Math.log2(62) >= 128);
    const keys = new Set(Array.from({ length: 2000 }, generateKey));
    assert.equal(keys.size, 2000);
    const firstRandom = new Set([...keys].map((k) => k[4]));
    assert.ok(firstRandom.size > 50, 'random characters cover the alphabet');
  });

  test('the checksum rejects look-alikes offline: any one changed character', () => {
    const key = generateKey();
    for (let i = 4; i < key.length; i++) {
      const c = key[i] === 'a' ? 'b' : 'a';
      assert.equal(isWellFormedKey(key.slice(0, i) + c + key.slice(i + 1)), false, `position ${i}`);
    }
    assert.equal(isWellFormedKey(`xxx_${key.slice(4)}`), false);
    assert.equal(isWellFormedKey(key.slice(0, -1)), false);
    assert.equal(isWellFormedKey(`${key}0`), false);
  });

  test('stored as a hash; display prefix is not the secret', () => {
    const key = generateKey();
    assert.equal(displayPrefix(key).length, DISPLAY_LENGTH);
    assert.ok(hashesMatch(hashKey(key), hashKey(key)));
    assert.ok(!hashesMatch(hashKey(key), hashKey(generateKey())));
    assert.ok(!hashesMatch(hashKey(key), Buffer.alloc(3)));
    assert.ok(!hashKey(key).toString('latin1').includes(key.slice(4)));
  });
});
