import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { watchRetirement } from '../../src/http/metrics.js';
import { createKey } from '../../src/keys/create-key.js';
import { KEY_STATUSES, v1Report } from '../../src/retirement/report.js';
import type { UsageRow } from '../../src/retirement/usage.js';
import type { Store } from '../../src/store.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load, testConfig } from '../support/helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';
import { metricsApp, sampleSum, scrape } from './scrape.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');

/** One day's ledger row of `key`: `count` calls of `api` answered with `status`, `daysAgo` days before NOW. */
function row(keyId: number, api: 'v1' | 'v2', status: number, daysAgo: number, count = 1): UsageRow {
  const at = NOW - daysAgo * DAY;
  return {
    keyId,
    api,
    operation: api === 'v1' ? 'getLastLead' : 'search',
    day: new Date(at).toISOString().slice(0, 10),
    status,
    count,
    firstSeen: at,
    lastSeen: at,
    userAgent: 'crm-sync/2.0',
  };
}

/** `leadline_v1_keys`: one series per status of `leadline v1 report`, from the first scrape, counted as the report counts. */
for (const engine of enginesUnderTest()) {
  describe(`leadline_v1_keys (${engine})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ store, cleanup } = await makeEngineStore(engine));
      await load(store, searchRecords());
    });
    after(() => cleanup());

    const keysGauge = async () => {
      const { app, metrics } = await metricsApp(store);
      watchRetirement(metrics, store, testConfig(), () => NOW);
      try {
        const s = await scrape(app);
        return s.filter((x) => x.name === 'leadline_v1_keys');
      } finally {
        await app.close();
      }
    };

    test('every status is a series at 0 before any key has it; refused keys are counted apart from on-v1', async () => {
      const empty = await keysGauge();
      assert.deepEqual(
        empty.map((x) => [x.labels.status, x.value]).sort(),
        KEY_STATUSES.map((s) => [s, 0]).sort(),
      );

      const made = [];
      for (let i = 0; i < 7; i++) made.push((await createKey(store, { member: M.admin }, NOW - 60 * DAY)).id);
      const [onV1, mixed, refused, brownedOut, migrated, v2Only] = made as [number, ...number[]];
      await store.retirement.addUsage([
        row(onV1, 'v1', 200, 1),
        // Served once among refusals: still on v1.
        row(mixed!, 'v1', 403, 1, 5),
        row(mixed!, 'v1', 200, 2),
        // Refused on every v1 call in the window (the freeze's 403; a brownout's 410), served before it.
        row(refused!, 'v1', 403, 1, 9),
        row(refused!, 'v1', 200, 45),
        row(brownedOut!, 'v1', 410, 3),
        row(migrated!, 'v1', 200, 40),
        row(migrated!, 'v2', 200, 1),
        row(v2Only!, 'v2', 200, 1),
      ]);
      const report = v1Report(await store.keys.list(), await store.retirement.usage(null), 30, NOW);
      const expected = Object.fromEntries(KEY_STATUSES.map((s) => [s, 0]));
      for (const k of report.keys) expected[k.status]! += 1;
      assert.deepEqual(expected, { 'on-v1': 2, refused: 2, migrated: 1, 'v2-only': 1, unused: 1 });

      const counted = await keysGauge();
      for (const status of KEY_STATUSES)
        assert.equal(sampleSum(counted, 'leadline_v1_keys', { status }), expected[status], status);
      assert.equal(counted.length, KEY_STATUSES.length, 'one series per status, no other');
    });
  });
}
