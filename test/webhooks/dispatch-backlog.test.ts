import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';

/**
 * A backlog of events (an import logs one per lead, whatever the team's endpoints) is dispatched
 * a batch at a time with the event loop's turns between the batches: on SQLite each batch is
 * synchronous, and batches chained in one promise chain held every request of the server until
 * the whole backlog was through (a million imported leads: over a minute).
 */
const TEAM = 1801;
const MEMBER = 18011;
const BATCHES = 4;

for (const engine of enginesUnderTest()) {
  describe(`a dispatch backlog [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let batch: number;

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      batch = store.deliveries.dispatchBatch;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Backlog' },
        { type: 'member', id: MEMBER, teamId: TEAM, email: 'b@backlog.test', role: 'admin', pid: 'p' },
        ...Array.from({ length: BATCHES * batch }, (_, i) => ({
          type: 'lead',
          userId: MEMBER,
          id: `backlog-${i}`,
          epoch: 1_750_000_000_000 + i,
          isLead: true,
        })),
      ]);
    });
    after(async () => {
      await made.cleanup();
    });

    it('goes a batch per turn of the event loop, not in one chain', async () => {
      // Turns of the event loop, counted once a turn (an immediate that queues itself again);
      // each batch notes how many had passed when it began.
      let turns = 0;
      let ticking = true;
      const tick = () => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const seen: { turns: number; n: number }[] = [];
      const deliveries = store.deliveries;
      const dispatch = deliveries.dispatch.bind(deliveries);
      deliveries.dispatch = async (limit, now) => {
        const at = turns;
        const n = await dispatch(limit, now);
        seen.push({ turns: at, n });
        return n;
      };
      const loop = new DeliveryLoop(store, loadWebhookConfig({}), pino({ level: 'silent' }));
      try {
        loop.start();
        await eventually(async () =>
          assert.ok(
            seen.some((s) => s.n === 0),
            'the backlog is through',
          ),
        );
      } finally {
        await loop.stop();
        ticking = false;
        deliveries.dispatch = dispatch;
      }
      const full = seen.filter((s) => s.n === batch);
      assert.equal(full.length, BATCHES, 'every event dispatched, a full batch at a time');
      for (let i = 1; i < full.length; i++)
        assert.ok(
          full[i]!.turns > full[i - 1]!.turns,
          `batch ${i + 1} began after a turn of the event loop (turns: ${full.map((s) => s.turns).join(', ')})`,
        );
    });
  });
}
