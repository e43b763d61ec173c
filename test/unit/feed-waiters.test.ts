import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedWaiters } from '../../src/leads/feed-waiters.js';

// tier: quick
/** The in-memory fan-out behind every engine's feed signal (docs/v2.md "Waiting for changes"). */
function waiters() {
  const source = { starts: 0, stops: 0 };
  const w = new FeedWaiters(
    {
      start: () => {
        source.starts++;
      },
      stop: () => {
        source.stops++;
      },
    },
    { fallbackMs: 0 },
  );
  return { w, source };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('feed waiters', () => {
  it('starts the source with the first watch and stops it after the last', async () => {
    const { w, source } = waiters();
    const a = await w.watch(1);
    const b = await w.watch(2);
    assert.deepEqual(source, { starts: 1, stops: 0 });
    assert.equal(w.waiting(), 2);
    a.close();
    a.close(); // twice is once
    assert.equal(w.waiting(), 1);
    b.close();
    assert.deepEqual(source, { starts: 1, stops: 1 });
    assert.equal(w.waiting(), 0);
    (await w.watch(1)).close();
    assert.deepEqual(source, { starts: 2, stops: 2 });
  });

  it('wakes the team’s watches once per turn, however many wake-ups came; other teams sleep on', async () => {
    const { w } = waiters();
    const mine = await w.watch(7);
    const theirs = await w.watch(8);
    const woken = mine.next(60_000);
    for (let i = 0; i < 100; i++) w.wake(7);
    assert.equal(await woken, true);
    await turn();
    // The hundred wake-ups were one: nothing is pending now.
    assert.equal(await mine.next(0), false);
    assert.equal(await theirs.next(0), false);
    w.wake(null);
    await turn();
    assert.equal(await theirs.next(0), true, 'a wake-up for every team');
    mine.close();
    theirs.close();
  });

  it('remembers a change that came before next() was called (read after watch, no gap)', async () => {
    const { w } = waiters();
    const watch = await w.watch(3);
    w.wake(3);
    await turn();
    assert.equal(await watch.next(0), true);
    assert.equal(await watch.next(0), false);
    watch.close();
  });

  it('an abort or the signal’s close ends a pending next() with false', async () => {
    const { w } = waiters();
    const watch = await w.watch(4);
    const stop = new AbortController();
    const pending = watch.next(60_000, stop.signal);
    stop.abort();
    assert.equal(await pending, false);
    const closing = watch.next(60_000);
    await w.close();
    assert.equal(await closing, false);
    assert.equal(await watch.next(60_000), false, 'ended for good');
    watch.close();
    const late = await w.watch(4);
    assert.equal(await late.next(60_000), false, 'a watch after close ends at once');
    late.close();
    assert.equal(w.waiting(), 0);
  });
});
