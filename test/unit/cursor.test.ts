import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { CursorCodec, fingerprint } from '../../src/domain/cursor.js';
import { AppError } from '../../src/domain/errors.js';

const refusedCursor = (fn: () => unknown) =>
  assert.throws(
    fn,
    (e: unknown) => e instanceof AppError && e.code === 'invalid-parameters' && /cursor/.test(e.detail),
  );

describe('v2 cursors', () => {
  const codec = new CursorCodec(randomBytes(32));
  const print = fingerprint({ scope: { teamId: 1 }, direction: 'DESC' });

  it('give back the position they carry to the same team and request', () => {
    const c = codec.encode('search', 1, print, { epoch: 5, seq: 9 });
    assert.deepEqual(codec.decode(c, 'search', 1, print), { epoch: 5, seq: 9 });
    assert.doesNotMatch(c, /epoch|seq/, 'opaque: no readable position');
  });

  it('are refused for another team, other filters, another kind or another secret', () => {
    const c = codec.encode('search', 1, print, { epoch: 5, seq: 9 });
    refusedCursor(() => codec.decode(c, 'search', 2, print));
    refusedCursor(() =>
      codec.decode(c, 'search', 1, fingerprint({ scope: { teamId: 1 }, direction: 'ASC' })),
    );
    refusedCursor(() => codec.decode(c, 'changes', 1, print));
    refusedCursor(() => new CursorCodec(randomBytes(32)).decode(c, 'search', 1, print));
  });

  it('are refused when tampered with or malformed', () => {
    const c = codec.encode('search', 1, print, { epoch: 5, seq: 9 });
    const [body, mac] = c.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ v: 1, k: 'search', t: 1, f: print, p: { epoch: 0, seq: 0 } }),
    ).toString('base64url');
    refusedCursor(() => codec.decode(`${forged}.${mac}`, 'search', 1, print));
    refusedCursor(() => codec.decode(body, 'search', 1, print));
    refusedCursor(() => codec.decode(`${c}.x`, 'search', 1, print));
    refusedCursor(() => codec.decode('not a cursor', 'search', 1, print));
  });

  it('fingerprint ignores key order but not values', () => {
    assert.equal(fingerprint({ a: 1, b: [1, 2] }), fingerprint({ b: [1, 2], a: 1 }));
    assert.notEqual(fingerprint({ a: 1, b: [1, 2] }), fingerprint({ a: 1, b: [2, 1] }));
    assert.notEqual(fingerprint({ a: null }), fingerprint({}));
  });
});
