import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainShare, retirementTimeline, stillOnV1, v1CallsByOperation } from '../../src/retirement/drain.js';
import type { V1Report } from '../../src/retirement/report.js';
import type { UsageRow } from '../../src/retirement/usage.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const row = (keyId: number, api: 'v1' | 'v2', operation: string, day: string, count: number): UsageRow => ({
  keyId,
  api,
  operation,
  day,
  status: 200,
  count,
  firstSeen: 0,
  lastSeen: 0,
  userAgent: null,
});

test('calls per day by operation: the window oldest first, only v1, only the keys asked for', () => {
  const calls = v1CallsByOperation(
    [
      row(1, 'v1', 'getLastLead', '2026-11-25', 3),
      row(1, 'v1', 'getLastLead', '2026-11-24', 2),
      row(2, 'v1', 'getLastLeadTeam', '2026-11-25', 5),
      row(1, 'v2', 'searchLeads', '2026-11-25', 7),
      row(9, 'v1', 'getLastLead', '2026-11-25', 100),
      row(1, 'v1', 'getLastLead', '2026-11-01', 50),
    ],
    new Set([1, 2]),
    3,
    NOW,
  );
  assert.deepEqual(calls.days, ['2026-11-23', '2026-11-24', '2026-11-25']);
  const by = Object.fromEntries(calls.series.map((s) => [s.operation, s.calls]));
  assert.deepEqual(by.getLastLead, [0, 2, 3]);
  assert.deepEqual(by.getLastLeadTeam, [0, 0, 5]);
  assert.deepEqual(by.getLeadsTimeRange, [0, 0, 0]);
  assert.equal(calls.series.length, 5);
});

test('the share migrated counts keys that ever called v1; still on v1 is any v1 call in the window', () => {
  const key = (keyId: number, status: string, v1Calls: number) =>
    ({
      keyId,
      memberId: 1,
      status,
      v1Calls,
      v1ByOperation: {},
      v1LastSeen: null,
      userAgent: null,
      v2Calls: 0,
    }) as never;
  const report = {
    windowDays: 30,
    keys: [
      key(1, 'on-v1', 4),
      key(2, 'refused', 2),
      key(3, 'migrated', 0),
      key(4, 'v2-only', 0),
      key(5, 'unused', 0),
    ],
  } as V1Report;
  assert.deepEqual(
    stillOnV1(report).map((k) => k.keyId),
    [1, 2],
  );
  assert.deepEqual(drainShare(report), { calledV1: 3, migrated: 1 });
});

test('the timeline puts the retirement dates and brownout windows in time order', () => {
  const entries = retirementTimeline({ deprecatedAt: 100, frozenAt: 300, sunsetAt: 900 }, [
    { id: 7, startsAt: 400, endsAt: 500, keyIds: [3, 4], createdAt: 0 },
    { id: 8, startsAt: 200, endsAt: 250, keyIds: null, createdAt: 0 },
  ]);
  assert.deepEqual(
    entries.map((e) => [e.at, e.kind]),
    [
      [100, 'deprecation'],
      [200, 'brownout-start'],
      [250, 'brownout-end'],
      [300, 'freeze'],
      [400, 'brownout-start'],
      [500, 'brownout-end'],
      [900, 'sunset'],
    ],
  );
  assert.match(entries[1]!.label, /every key/);
  assert.match(entries[4]!.label, /keys 3, 4/);
  assert.equal(retirementTimeline({ deprecatedAt: 1, frozenAt: 2, sunsetAt: null }, []).length, 2);
});
