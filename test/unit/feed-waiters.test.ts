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

  it('shares a read among watchers of the team until the team’s next wake-up arrives', async () => {
    const { w } = waiters();
    let reads = 0;
    const read = async () => ++reads;
    // Nobody watches: nothing would keep a kept answer fresh, so every call reads.
    assert.equal(await w.shared(7, 'k', read), 1);
    assert.equal(await w.shared(7, 'k', read), 2);
    const watch = await w.watch(7);
    const first = await w.shared(7, 'k', read);
    assert.equal(await w.shared(7, 'k', read), first, 'the same key: the kept answer');
    assert.equal(await w.shared(7, 'other', read), first + 1, 'another key reads');
    assert.equal(await w.shared(8, 'k', read), first + 2, 'another team reads');
    w.wake(8);
    assert.equal(await w.shared(7, 'k', read), first, 'another team’s wake-up keeps it');
    // Dropped when the wake-up arrives, before it is flushed to the watches.
    w.wake(7);
    const after = await w.shared(7, 'k', read);
    assert.equal(after, first + 3);
    assert.equal(await w.shared(7, 'k', read), after);
    w.wake(null);
    assert.equal(await w.shared(7, 'k', read), after + 1, 'a wake-up for every team drops it too');
    watch.close();
    assert.equal(await w.shared(7, 'k', read), after + 2, 'the last watch gone: reads again');
  });

  it('does not keep a failed read', async () => {
    const { w } = waiters();
    const watch = await w.watch(1);
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('store gone');
    };
    await assert.rejects(w.shared(1, 'k', failing), /store gone/);
    await turn();
    await assert.rejects(w.shared(1, 'k', failing), /store gone/);
    assert.equal(calls, 2);
    watch.close();
  });

  it('re-checks kept reads on its fallback and wakes a team only when a mark moved', async () => {
    const w = new FeedWaiters({ start: () => {}, stop: () => {} }, { fallbackMs: 20 });
    let next = 'p1';
    let reads = 0;
    const read = async () => {
      reads++;
      return { next };
    };
    const mark = (page: { next: string }) => page.next;
    const quiet = await w.watch(1);
    const unread = await w.watch(2);
    await w.shared(1, 'k', read, mark);
    // Team 2 has a watch but no kept read: the fallback cannot tell, so it wakes it.
    assert.equal(await unread.next(1_000), true);
    // Team 1's read comes back the same: several re-checks, no wake-up.
    assert.equal(await quiet.next(150), false);
    assert.ok(reads >= 3, `read again by the re-checks (${reads} reads)`);
    // Something shows at the position (a row no notification announced): woken.
    next = 'p2';
    assert.equal(await quiet.next(1_000), true);
    // The wake-up dropped the kept read: the next waiter reads the new page.
    assert.deepEqual(await w.shared(1, 'k', read, mark), { next: 'p2' });
    // A kept read without a mark cannot be compared: its team is woken.
    await w.shared(1, 'other', read);
    assert.equal(await quiet.next(1_000), true);
    quiet.close();
    unread.close();
  });
});
