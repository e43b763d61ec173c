import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiKey } from '../../src/keys/keys.port.js';
import { v1CallsByDay, v1Report } from '../../src/retirement/report.js';
import type { UsageRow } from '../../src/retirement/usage.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const key = (id: number, memberId: number): ApiKey => ({
  id,
  memberId,
  teamId: 1,
  display: `llk_${id}`,
  label: null,
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  legacyV1: false,
});
const row = (
  keyId: number,
  api: 'v1' | 'v2',
  operation: string,
  day: string,
  count: number,
  agent: string | null = null,
): UsageRow => {
  const at = Date.parse(`${day}T08:00:00Z`);
  return {
    keyId,
    api,
    operation,
    day,
    status: 200,
    count,
    firstSeen: at,
    lastSeen: at + count,
    userAgent: agent,
  };
};

/** Every v1 operation, none called: how a key without v1 calls in the window reports them. */
const NO_V1_CALLS = {
  getLastLead: 0,
  getLastLeadTeam: 0,
  getLastLeadSubTeam: 0,
  getLeadsTimeRange: 0,
  getLeadsTimeRangeForTeam: 0,
};

describe('v1 report', () => {
  const usage = [
    row(1, 'v1', 'getLastLead', '2026-11-21', 5, 'zapier/2'),
    row(1, 'v1', 'getLeadsTimeRange', '2026-11-01', 2, 'zapier/1'),
    row(2, 'v1', 'getLastLeadTeam', '2026-09-01', 9, 'sheets/7'),
    row(2, 'v2', 'searchLeads', '2026-11-20', 4),
    row(3, 'v2', 'getLead', '2026-11-19', 1),
    { ...row(1, 'v1', 'getLastLead', '2026-11-21', 1, 'zapier/2'), status: 410 },
  ];

  it('gives each key its status, calls in the window, last v1 call and user agent', () => {
    const report = v1Report([key(4, 40), key(3, 30), key(2, 20), key(1, 10)], usage, 30, NOW);
    assert.equal(report.windowDays, 30);
    assert.deepEqual(report.keys, [
      {
        keyId: 1,
        memberId: 10,
        status: 'on-v1',
        v1Calls: 8,
        v1Served: 7,
        v1Refused: 1,
        v1ByOperation: {
          getLastLead: 6,
          getLastLeadTeam: 0,
          getLastLeadSubTeam: 0,
          getLeadsTimeRange: 2,
          getLeadsTimeRangeForTeam: 0,
        },
        v1LastSeen: new Date(Date.parse('2026-11-21T08:00:00Z') + 5).toISOString(),
        userAgent: 'zapier/2',
        v2Calls: 0,
      },
      {
        keyId: 2,
        memberId: 20,
        status: 'migrated',
        v1Calls: 0,
        v1Served: 0,
        v1Refused: 0,
        v1ByOperation: NO_V1_CALLS,
        v1LastSeen: new Date(Date.parse('2026-09-01T08:00:00Z') + 9).toISOString(),
        userAgent: 'sheets/7',
        v2Calls: 4,
      },
      {
        keyId: 3,
        memberId: 30,
        status: 'v2-only',
        v1Calls: 0,
        v1Served: 0,
        v1Refused: 0,
        v1ByOperation: NO_V1_CALLS,
        v1LastSeen: null,
        userAgent: null,
        v2Calls: 1,
      },
      {
        keyId: 4,
        memberId: 40,
        status: 'unused',
        v1Calls: 0,
        v1Served: 0,
        v1Refused: 0,
        v1ByOperation: NO_V1_CALLS,
        v1LastSeen: null,
        userAgent: null,
        v2Calls: 0,
      },
    ]);
  });

  it('a key refused on every v1 call in the window is refused, not on-v1; one served call makes it on-v1', () => {
    const refused = (status: number, count: number) => ({
      ...row(1, 'v1', 'getLastLead', '2026-11-21', count),
      status,
    });
    const only = v1Report([key(1, 10)], [refused(403, 3), refused(410, 2)], 30, NOW).keys[0];
    assert.deepEqual([only?.status, only?.v1Calls, only?.v1Served, only?.v1Refused], ['refused', 5, 0, 5]);
    const one = v1Report([key(1, 10)], [refused(403, 3), refused(304, 1)], 30, NOW).keys[0];
    assert.deepEqual([one?.status, one?.v1Served, one?.v1Refused], ['on-v1', 1, 3]);
    // Refused calls before the window only: the key has moved off v1 as far as the window shows.
    const old = v1Report([key(1, 10)], [{ ...refused(410, 2), day: '2026-09-01' }], 30, NOW).keys[0];
    assert.equal(old?.status, 'migrated');
  });

  it('a shorter window moves a key from on-v1 to migrated; the window counts whole UTC days', () => {
    const report = v1Report([key(1, 10)], [row(1, 'v1', 'getLastLead', '2026-11-19', 3)], 2, NOW);
    assert.equal(report.keys[0]?.status, 'migrated');
    const wider = v1Report([key(1, 10)], [row(1, 'v1', 'getLastLead', '2026-11-19', 3)], 3, NOW);
    assert.equal(wider.keys[0]?.status, 'on-v1');
  });

  it('v1 calls per day cover every day of the window, for the keys asked about', () => {
    const days = v1CallsByDay(usage, new Set([1, 2]), 3, NOW);
    assert.deepEqual(days, [
      { day: '2026-11-19', calls: 0 },
      { day: '2026-11-20', calls: 0 },
      { day: '2026-11-21', calls: 6 },
    ]);
  });
});
