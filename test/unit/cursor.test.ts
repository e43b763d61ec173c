import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { CursorCodec, fingerprint } from '../../src/leads/cursor.js';
import { AppError } from '../../src/shared/errors.js';
import { cursorBytes, signedCursor } from '../v2/legacy-cursor.js';

const refusedCursor = (fn: () => unknown) =>
  assert.throws(
    fn,
    (e: unknown) => e instanceof AppError && e.code === 'invalid-parameters' && /cursor/.test(e.detail),
  );

describe('v2 cursors', () => {
  const secret = randomBytes(32);
  const codec = new CursorCodec(secret);
  const print = fingerprint({ scope: { teamId: 1 }, direction: 'DESC' });
  const position = { epoch: 1748779200123, seq: 987654 };

  it('give back the position they carry to the same team and request', () => {
    const c = codec.encode('search', 1, print, position);
    assert.deepEqual(codec.decode(c, 'search', 1, print), position);
    assert.deepEqual(
      codec.decode(codec.encode('changes', 1, 'changes', '812:77'), 'changes', 1, 'changes'),
      '812:77',
    );
  });

  it('are sealed: their bytes show no position, team or filters, and each is new', () => {
    const c = codec.encode('search', 1, print, position);
    const shown = cursorBytes(c);
    for (const hidden of ['1748779200123', '987654', '"p"', 'search', print]) {
      assert.ok(!shown.includes(hidden), `${hidden} readable in the cursor`);
    }
    assert.ok(!cursorBytes(codec.encode('changes', 1, 'changes', '812:77')).includes('812:77'));
    assert.notEqual(codec.encode('search', 1, print, position), c, 'a fresh salt per cursor');
    assert.doesNotMatch(c, /\./, 'no `.`: told apart from the signed format');
  });

  it('are refused for another team, other filters, another kind or another secret', () => {
    const c = codec.encode('search', 1, print, position);
    refusedCursor(() => codec.decode(c, 'search', 2, print));
    refusedCursor(() =>
      codec.decode(c, 'search', 1, fingerprint({ scope: { teamId: 1 }, direction: 'ASC' })),
    );
    refusedCursor(() => codec.decode(c, 'changes', 1, print));
    refusedCursor(() => new CursorCodec(randomBytes(32)).decode(c, 'search', 1, print));
  });

  it('are refused when any byte is altered, cut short or malformed', () => {
    const c = codec.encode('search', 1, print, position);
    const raw = Buffer.from(c, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] = (altered[i] ?? 0) ^ 0x01;
      refusedCursor(() => codec.decode(altered.toString('base64url'), 'search', 1, print));
    }
    refusedCursor(() => codec.decode(raw.subarray(0, -1).toString('base64url'), 'search', 1, print));
    refusedCursor(() => codec.decode(`${c}.x`, 'search', 1, print));
    refusedCursor(() => codec.decode('not a cursor', 'search', 1, print));
    refusedCursor(() => codec.decode('', 'search', 1, print));
  });

  it('opened once, are still checked for the request each time, and a kept one does not let an altered one in', () => {
    const c = codec.encode('search', 1, print, position);
    // Opened (and kept) first: what it says does not change, nor its checks.
    assert.deepEqual(codec.decode(c, 'search', 1, print), position);
    assert.deepEqual(codec.decode(c, 'search', 1, print), position);
    refusedCursor(() => codec.decode(c, 'search', 2, print));
    refusedCursor(() => codec.decode(c, 'changes', 1, print));
    const raw = Buffer.from(c, 'base64url');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 0x01;
    refusedCursor(() => codec.decode(raw.toString('base64url'), 'search', 1, print));
    // What one caller does to the position it got back is not what the next one opens.
    (codec.decode(c, 'search', 1, print) as { seq: number }).seq = -1;
    assert.deepEqual(codec.decode(c, 'search', 1, print), position);
    // More cursors than are kept: the first is opened again, the same.
    for (let i = 0; i < 5000; i++)
      codec.decode(codec.encode('changes', 1, 'changes', `${i}:1`), 'changes', 1, 'changes');
    assert.deepEqual(codec.decode(c, 'search', 1, print), position);
  });

  it('signed cursors of the previous format are still accepted, and still checked', () => {
    const old = signedCursor(secret, { k: 'search', t: 1, f: print, p: position });
    assert.deepEqual(codec.decode(old, 'search', 1, print), position);
    refusedCursor(() => codec.decode(old, 'search', 2, print));
    refusedCursor(() => codec.decode(old, 'changes', 1, print));
    refusedCursor(() => new CursorCodec(randomBytes(32)).decode(old, 'search', 1, print));
    const [body, mac] = old.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ v: 1, k: 'search', t: 1, f: print, p: { epoch: 0, seq: 0 } }),
    ).toString('base64url');
    refusedCursor(() => codec.decode(`${forged}.${mac}`, 'search', 1, print));
    refusedCursor(() => codec.decode(body, 'search', 1, print));
    // Signed with the right secret but not version 1: format 1 never had another version.
    const v2Body = Buffer.from(JSON.stringify({ v: 2, k: 'search', t: 1, f: print, p: position })).toString(
      'base64url',
    );
    const v2Mac = createHmac('sha256', secret).update(v2Body).digest().subarray(0, 16).toString('base64url');
    refusedCursor(() => codec.decode(`${v2Body}.${v2Mac}`, 'search', 1, print));
  });

  it('fingerprint ignores key order but not values', () => {
    assert.equal(fingerprint({ a: 1, b: [1, 2] }), fingerprint({ b: [1, 2], a: 1 }));
    assert.notEqual(fingerprint({ a: 1, b: [1, 2] }), fingerprint({ a: 1, b: [2, 1] }));
    assert.notEqual(fingerprint({ a: null }), fingerprint({}));
  });
});
