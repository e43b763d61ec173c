import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CounterTotal,
  type SharedCounters,
  SharedRateLimiter,
} from '../../src/rate-limit/shared-counters.js';

/**
 * The sharing logic on its own, over counters held in a Map that can be made to fail (the real
 * stores' counters are tested in test/storage/pg-rate-limit.test.ts and test/operations/instances.test.ts):
 * counts a failed sync could not hand over stay pending and go with the next one.
 */
class MapCounters implements SharedCounters {
  readonly totals = new Map<string, number>();
  failing = false;
  calls = 0;
  async add(keys: string[], starts: number[], counts: number[]): Promise<CounterTotal[]> {
    this.calls++;
    if (this.failing) throw new Error('unreachable');
    return keys.map((key, i) => {
      const name = `${key}@${starts[i]}`;
      const count = (this.totals.get(name) ?? 0) + counts[i]!;
      this.totals.set(name, count);
      return { key, start: starts[i]!, count };
    });
  }
}

const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('SharedRateLimiter', () => {
  it('a sync that fails keeps its counts pending; the next one hands them over', async () => {
    const counters = new MapCounters();
    const l = new SharedRateLimiter(counters, 100, 60, 60_000, () => NOW);
    for (let i = 0; i < 5; i++) await l.consume('k');
    counters.failing = true;
    await assert.rejects(l.sync(), /unreachable/);
    assert.equal(counters.totals.get(`k@${START}`), 1, 'only the first request reached the counters');
    counters.failing = false;
    await l.sync();
    assert.equal(counters.totals.get(`k@${START}`), 5);
    await l.close();
  });

  it('with syncMs 0 every request is an addition', async () => {
    const counters = new MapCounters();
    const l = new SharedRateLimiter(counters, 2, 60, 0, () => NOW);
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push((await l.consume('k')).allowed);
    assert.deepEqual(allowed, [true, true, false]);
    assert.equal(counters.calls, 3);
  });

  it('close() gives up quietly when the counters cannot be reached', async () => {
    const counters = new MapCounters();
    const l = new SharedRateLimiter(counters, 100, 60, 60_000, () => NOW);
    await l.consume('k');
    await l.consume('k');
    counters.failing = true;
    await l.close();
    assert.equal(counters.totals.get(`k@${START}`), 1);
  });
});
