import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BrownoutCache } from '../../src/http/v1/brownout-cache.js';
import { UsageLedger, type UsageRow } from '../../src/retirement/usage.js';

const DAY1 = Date.parse('2026-11-20T10:00:00Z');
const DAY2 = Date.parse('2026-11-21T10:00:00Z');

describe('usage ledger', () => {
  it('adds calls up per key, version, operation, day and status, with first and last seen', async () => {
    const written: UsageRow[][] = [];
    const ledger = new UsageLedger({ addUsage: async (rows) => void written.push(rows) });
    ledger.count(1, 'v1', 'getLastLead', 200, DAY1 + 5, 'crm/1');
    ledger.count(1, 'v1', 'getLastLead', 200, DAY1, 'crm/0');
    ledger.count(1, 'v1', 'getLastLead', 200, DAY1 + 9, 'crm/2');
    ledger.count(1, 'v1', 'getLastLead', 410, DAY1, null);
    ledger.count(1, 'v1', 'getLastLead', 200, DAY2, 'crm/3');
    ledger.count(2, 'v2', 'searchLeads', 200, DAY2, 'x'.repeat(500));
    await ledger.flush();
    assert.equal(ledger.size, 0);
    const rows = written[0] ?? [];
    assert.equal(rows.length, 4);
    const first = rows.find((r) => r.keyId === 1 && r.status === 200 && r.day === '2026-11-20');
    assert.deepEqual(first, {
      keyId: 1,
      api: 'v1',
      operation: 'getLastLead',
      day: '2026-11-20',
      status: 200,
      count: 3,
      firstSeen: DAY1,
      lastSeen: DAY1 + 9,
      userAgent: 'crm/2',
    });
    assert.equal(rows.find((r) => r.keyId === 2)?.userAgent?.length, 200, 'user agents are cut at 200');
    await ledger.flush();
    assert.equal(written.length, 1, 'nothing to write: no write');
  });

  it('keeps the counts when the store cannot take them, and writes them with the next flush', async () => {
    let down = true;
    const written: UsageRow[] = [];
    const ledger = new UsageLedger({
      addUsage: async (rows) => {
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        written.push(...rows);
      },
    });
    ledger.count(7, 'v1', 'getLastLeadTeam', 200, DAY1, 'a');
    await assert.rejects(ledger.flush());
    ledger.count(7, 'v1', 'getLastLeadTeam', 200, DAY1 + 1, 'b');
    down = false;
    await ledger.flush();
    assert.equal(written.length, 1);
    assert.equal(written[0]?.count, 2);
    assert.equal(written[0]?.userAgent, 'b');
  });
});

describe('brownout schedule', () => {
  it('reads the store at most once per max age, one read shared by waiting requests', async () => {
    let reads = 0;
    let clock = 0;
    const schedule = new BrownoutCache(
      async () => {
        reads++;
        return [];
      },
      500,
      () => clock,
    );
    await Promise.all([schedule.current(), schedule.current(), schedule.current()]);
    assert.equal(reads, 1);
    clock = 499;
    await schedule.current();
    assert.equal(reads, 1);
    clock = 500;
    await schedule.current();
    assert.equal(reads, 2);
  });
});
