import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryRateLimiter } from '../../src/domain/rate-limit.js';
import { etagOf, noneMatch } from '../../src/http/etag.js';
import { rateLimitHeaders } from '../../src/http/rate-limit.js';

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
