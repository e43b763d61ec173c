import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ISO_WITH_OFFSET } from '../../src/schemas/v2.js';
import { captureTimeTooLate, formatInstant, parseInstant } from '../../src/shared/instant.js';

const iso = (ms: number) => new Date(ms).toISOString();
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

describe('formatInstant', () => {
  it('writes what Date#toISOString writes, for any integer instant in years 1970–9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: LAST_FOUR_DIGIT_YEAR_MS }), (ms) => {
        assert.equal(formatInstant(ms), iso(ms));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees on day, leap-day and range edges, and in runs that share a day', () => {
    const edges = [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000];
    for (const ms of [
      ...edges,
      LAST_FOUR_DIGIT_YEAR_MS,
      LAST_FOUR_DIGIT_YEAR_MS + 1,
      -1,
      -62_198_755_200_000,
    ])
      assert.equal(formatInstant(ms), iso(ms), String(ms));
    // Alternating days, as a page of leads alternates capture and storage times.
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_700_400_000_000 }), { maxLength: 50 }),
        (all) => {
          for (const ms of all) assert.equal(formatInstant(ms), iso(ms));
        },
      ),
    );
  });

  it('leaves what is not an integer instant in range to Date, errors included', () => {
    for (const ms of [1.5, -0.5, 8.64e15, -8.64e15]) assert.equal(formatInstant(ms), iso(ms), String(ms));
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1])
      assert.throws(() => formatInstant(ms), RangeError);
  });
});

describe('captureTimeTooLate (R11)', () => {
  const readBack = new RegExp(ISO_WITH_OFFSET);
  const DAY = 86_400_000;

  it('lets through only times v2 reads back: for any clock and tolerance, a four-digit year, the same epoch', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8_640_000_000_000_000 }),
        fc.integer({ min: 0, max: 8_640_000_000_000_000 }),
        fc.integer({ min: 0, max: 365 * DAY }),
        (epoch, now, tolerance) => {
          if (captureTimeTooLate(epoch, now, tolerance) !== null) return;
          const written = formatInstant(epoch);
          assert.match(written, readBack);
          assert.equal(parseInstant(written), epoch);
        },
      ),
      { numRuns: 20_000 },
    );
    // The edge: the last four-digit instant passes a clock past it; one millisecond more does not.
    const clock = 8_000_000_000_000_000;
    assert.equal(captureTimeTooLate(LAST_FOUR_DIGIT_YEAR_MS, clock, 0), null);
    assert.notEqual(captureTimeTooLate(LAST_FOUR_DIGIT_YEAR_MS + 1, clock, 0), null);
  });

  it('refuses beyond now + tolerance, naming the tolerance and its setting', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    assert.equal(captureTimeTooLate(now + DAY, now, DAY), null);
    assert.equal(
      captureTimeTooLate(now + DAY + 1, now, DAY),
      'lies more than 24 h in the future (LEADLINE_CAPTURE_TOLERANCE_SECONDS)',
    );
    assert.match(captureTimeTooLate(now + 1, now, 0) ?? '', /more than 0 s in the future/);
    assert.match(captureTimeTooLate(now + DAY, now, 90_000) ?? '', /more than 90 s in the future/);
    assert.match(captureTimeTooLate(now + DAY, now, 1_800_000) ?? '', /more than 30 min in the future/);
  });
});
