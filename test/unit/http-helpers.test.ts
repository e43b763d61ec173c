import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { etagOf, noneMatch } from '../../src/http/etag.js';
import { isStoreUnavailable } from '../../src/http/problem.js';
import { rateLimitHeaders } from '../../src/http/rate-limit.js';
import { MemoryRateLimiter } from '../../src/rate-limit/fixed-window.js';

describe('ETag (C4)', () => {
  const tag = etagOf('[{"id":"1"}]');
  test('strong, quoted, and different for different bodies', () => {
    assert.match(tag, /^"[A-Za-z0-9_-]+"$/);
    assert.notEqual(tag, etagOf('[]'));
  });
  test('If-None-Match: weak comparison, lists and *', () => {
    assert.equal(noneMatch(undefined, tag), false);
    assert.equal(noneMatch(tag, tag), true);
    assert.equal(noneMatch(`W/${tag}`, tag), true);
    assert.equal(noneMatch(`"other", ${tag}`, tag), true);
    assert.equal(noneMatch('*', tag), true);
    assert.equal(noneMatch('"other"', tag), false);
  });
});

describe('rate limit (C5)', () => {
  test('fixed window per key, reset after the window', async () => {
    let now = 60_000 * 100 + 15_000;
    const limiter = new MemoryRateLimiter(2, 60, () => now);
    const a1 = await limiter.consume('a');
    assert.deepEqual([a1.allowed, a1.remaining, a1.resetSeconds], [true, 1, 45]);
    assert.equal((await limiter.consume('a')).allowed, true);
    const a3 = await limiter.consume('a');
    assert.deepEqual([a3.allowed, a3.remaining], [false, 0]);
    assert.equal((await limiter.consume('b')).allowed, true, 'other keys are not affected');
    now += 45_000;
    assert.equal((await limiter.consume('a')).allowed, true, 'a new window');
  });

  test('IETF RateLimit and RateLimit-Policy fields', () => {
    const h = rateLimitHeaders({
      allowed: true,
      limit: 600,
      remaining: 599,
      resetSeconds: 33,
      windowSeconds: 60,
    });
    assert.deepEqual(h, { 'ratelimit-policy': '"default";q=600;w=60', ratelimit: '"default";r=599;t=33' });
  });
});

describe('the store cannot be reached or refuses us: 503, not 500 (issue 36)', () => {
  const pg = (code: string, severity = 'ERROR') => ({ code, severity });
  test('connection refusals and losses, whatever their class', () => {
    for (const err of [
      pg('55000', 'FATAL'), // database "x" is not currently accepting connections (ALLOW_CONNECTIONS false)
      pg('28P01', 'FATAL'), // password authentication failed
      pg('3D000', 'FATAL'), // database does not exist (dropped under us)
      pg('XX000', 'PANIC'),
      pg('08006'),
      pg('08001'),
      pg('53300', 'FATAL'), // too many connections
      pg('53000'),
      pg('53100'), // disk full
      pg('53200'), // out of memory
      pg('57P01', 'FATAL'), // terminated by an administrator
      pg('57P02'),
      pg('57P03', 'FATAL'), // the database system is starting up / cannot connect now
      pg('57P04'),
      pg('57014'), // statement timeout
      { code: 'ECONNREFUSED' },
      { code: 'CONNECT_TIMEOUT' },
      { code: 'CONNECTION_CLOSED' },
      { code: 'SQLITE_BUSY' },
      { code: 'SQLITE_IOERR_READ' },
    ])
      assert.equal(isStoreUnavailable(err), true, JSON.stringify(err));
  });
  test('ordinary query errors stay 500s, 55000 at severity ERROR included', () => {
    for (const err of [
      pg('55000'), // e.g. currval not yet defined in this session
      pg('55P03'), // lock not available
      pg('23505'),
      pg('42P01'),
      pg('22P02'),
      pg('40001'),
      { code: 'SQLITE_CONSTRAINT' },
      { code: undefined },
      {},
    ])
      assert.equal(isStoreUnavailable(err), false, JSON.stringify(err));
  });
});
