import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalTimeZone, timeLabel } from '../../src/leads/time-label.js';

describe('time label (C1)', () => {
  test('YYYY-MM-DD HH:mm:ss in the team time zone, daylight saving included', () => {
    const winter = Date.UTC(2026, 0, 15, 12, 0, 0);
    const summer = Date.UTC(2026, 6, 15, 12, 0, 0);
    assert.equal(timeLabel(winter, 'UTC'), '2026-01-15 12:00:00');
    assert.equal(timeLabel(winter, 'Europe/Berlin'), '2026-01-15 13:00:00');
    assert.equal(timeLabel(summer, 'Europe/Berlin'), '2026-07-15 14:00:00');
    assert.equal(timeLabel(summer, 'America/Los_Angeles'), '2026-07-15 05:00:00');
    assert.equal(timeLabel(Date.UTC(2026, 0, 1, 0, 0, 0), 'Asia/Tokyo'), '2026-01-01 09:00:00');
    assert.equal(timeLabel(Date.UTC(2025, 11, 31, 23, 59, 59), 'UTC'), '2025-12-31 23:59:59');
    assert.equal(timeLabel(0, 'UTC'), '1970-01-01 00:00:00');
  });

  test('midnight is 00, never 24', () => {
    assert.equal(timeLabel(Date.UTC(2026, 2, 1, 0, 0, 0), 'UTC'), '2026-03-01 00:00:00');
  });

  test('time zones: canonical spelling, unknown refused', () => {
    assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
    assert.equal(canonicalTimeZone('UTC'), 'UTC');
    assert.equal(canonicalTimeZone('Mars/Olympus'), null);
  });
});

describe('time label cache', () => {
  test('labels from the per-hour offset equal a direct formatting across offset changes', () => {
    const direct = (epoch: number, timeZone: string) => {
      const f = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
      const p = Object.fromEntries(f.formatToParts(new Date(epoch)).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
    };
    // Days holding an offset change: Berlin and New York (whole hours), Lord Howe (30 minutes),
    // Kathmandu's 1986 move from +05:30 to +05:45, Samoa skipping 2011-12-30.
    const days: [string, string][] = [
      ['Europe/Berlin', '2025-03-30'],
      ['Europe/Berlin', '2025-10-26'],
      ['America/New_York', '2025-11-02'],
      ['Australia/Lord_Howe', '2025-04-06'],
      ['Asia/Kathmandu', '1985-12-31'],
      ['Pacific/Apia', '2011-12-29'],
    ];
    for (const [zone, day] of days) {
      const start = Date.parse(`${day}T00:00:00Z`) - 86_400_000;
      for (let epoch = start; epoch < start + 3 * 86_400_000; epoch += 7 * 60_000 + 13_001) {
        assert.equal(timeLabel(epoch, zone), direct(epoch, zone), `${zone} ${epoch}`);
      }
    }
  });

  test('labels from the per-minute cache equal a direct formatting, across zones and years', () => {
    // Every zone this runtime knows: the cache assumes whole-minute offsets from 1973 on.
    const zones = Intl.supportedValuesOf('timeZone');
    const direct = (epoch: number, timeZone: string) => {
      const f = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
      const p = Object.fromEntries(f.formatToParts(new Date(epoch)).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
    };
    for (const zone of zones) {
      for (const epoch of [
        0, 63_590_400_000, 94_694_400_000, 500_000_030_500, 1_767_225_599_999, 4_102_444_799_000,
      ]) {
        for (const delta of [0, 59_999]) {
          assert.equal(
            timeLabel(epoch + delta, zone),
            direct(epoch + delta, zone),
            `${zone} ${epoch + delta}`,
          );
          assert.equal(timeLabel(epoch + delta, zone), direct(epoch + delta, zone), 'cached again');
        }
      }
    }
  });
});
