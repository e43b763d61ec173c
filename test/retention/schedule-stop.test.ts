import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import type { AuditStore } from '../../src/audit/audit.port.js';
import type { ErasureStore } from '../../src/privacy/erasure.port.js';
import type { RetentionStore } from '../../src/retention/retention.port.js';
import { RetentionSchedule } from '../../src/retention/schedule.js';

/**
 * The schedule's life (docs/privacy.md "Retention"): interval 0 never runs; a failed run is
 * logged and the next one comes; `stop` waits for the run in progress, which ends after the
 * batch in hand, and no run starts after it.
 */
const silent = pino({ level: 'silent' });

function fakePorts(onDueLeads: () => Promise<void> = async () => {}) {
  const calls = { policies: 0, erase: 0, finish: 0 };
  let fail = false;
  const retention = {
    policies: async () => {
      calls.policies++;
      if (fail) throw new Error('store down');
      return [{ teamId: 1, days: 30, basis: 'last-change', setAt: 0, lastRunAt: null, lastErased: null }];
    },
    claim: async () => 30,
    dueCount: async () => 1_000_000,
    dueLeads: async () => {
      await onDueLeads();
      return ['018bcfe5-6800-7000-8000-000000000001'];
    },
    finish: async () => {
      calls.finish++;
    },
    pruneReceipts: async () => 0,
  } as unknown as RetentionStore;
  const erasures = {
    erase: async (o: { id: string }) => {
      calls.erase++;
      return { id: o.id, counts: { leads: 1 } };
    },
    reclaim: async () => {},
  } as unknown as ErasureStore;
  const audit = { record: async () => ({}) } as unknown as AuditStore;
  return { ports: { retention, erasures, audit }, calls, failNext: (v: boolean) => (fail = v) };
}

describe('the retention schedule', () => {
  test('interval 0: never runs', async () => {
    const f = fakePorts();
    const s = new RetentionSchedule(f.ports, { intervalMs: 0, receiptDays: 1 }, silent);
    s.start();
    await new Promise((r) => setTimeout(r, 50));
    await s.stop();
    assert.equal(f.calls.policies, 0);
  });

  test('a failed run is followed by the next one', async () => {
    const f = fakePorts(() => new Promise((r) => setTimeout(r, 1)));
    f.failNext(true);
    const s = new RetentionSchedule(f.ports, { intervalMs: 20, receiptDays: 1 }, silent);
    s.start();
    await new Promise((r) => setTimeout(r, 50));
    f.failNext(false);
    while (f.calls.erase === 0) await new Promise((r) => setTimeout(r, 10));
    await s.stop();
    assert.ok(f.calls.policies >= 2);
  });

  test('stop ends the run after its batch, releases the team, and no run follows', async () => {
    let batches = 0;
    const f = fakePorts(async () => {
      batches++;
      await new Promise((r) => setTimeout(r, 5));
    });
    const s = new RetentionSchedule(f.ports, { intervalMs: 10, receiptDays: 1 }, silent);
    s.start();
    while (batches < 3) await new Promise((r) => setTimeout(r, 5));
    await s.stop();
    const [erased, policies] = [f.calls.erase, f.calls.policies];
    assert.equal(f.calls.finish, 1, 'the lease handed back');
    assert.ok(erased >= 2 && erased <= batches, `${erased} of ${batches}`);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([f.calls.erase, f.calls.policies], [erased, policies]);
  });
});
