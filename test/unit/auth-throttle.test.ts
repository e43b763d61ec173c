import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthFailureThrottle } from '../../src/keys/auth-throttle.js';

describe('auth failure throttle: keys that authenticated', () => {
  it('a key seen again within a second keeps its place; the oldest still goes when the set is full', () => {
    const t = new AuthFailureThrottle(1, 60_000, 10_000, 3_600_000, 2);
    t.failed('10.0.0.1', null, 0); // the address is throttled from here on
    t.succeeded('A', 1_000);
    t.succeeded('B', 1_100);
    t.succeeded('A', 1_500); // within a second of its entry: A stays the oldest
    t.succeeded('C', 1_600); // full: A goes
    assert.notEqual(t.admit('10.0.0.1', 'A', 1_700), null);
    assert.equal(t.admit('10.0.0.1', 'B', 1_700), null);
    assert.equal(t.admit('10.0.0.1', 'C', 1_700), null);
    t.succeeded('B', 2_200); // over a second: B is refreshed and C is now the oldest
    t.succeeded('D', 2_300);
    assert.equal(t.admit('10.0.0.1', 'B', 2_400), null);
    assert.notEqual(t.admit('10.0.0.1', 'C', 2_400), null);
  });
});
