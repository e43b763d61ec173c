/**
 * Preload for a leadline server: every 500 ms (stamped with the UTC time), its event-loop delay (p50, p99, max, in ms over
 * the 1 ms sampling resolution) on stderr, with the garbage collector's pauses of that half
 * second (count, total and longest, and each pause over 10 ms with its kind). Only in the
 * process that runs `serve`, on its main thread, so it can ride in NODE_OPTIONS through a bench script:
 *
 *   NODE_OPTIONS="--import $PWD/bench/loop-delay.mjs" node --import tsx bench/big-answer-probes.ts --db <file>
 */

import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

// The serving thread's only: a preload runs in every worker thread too (the range and erasure threads).
if (process.argv.includes('serve') && isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let gc = { count: 0, total: 0, longest: 0, long: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count += 1;
      gc.total += e.duration;
      gc.longest = Math.max(gc.longest, e.duration);
      if (e.duration > 10)
        gc.long.push(`${KINDS[e.detail?.kind] ?? e.detail?.kind} ${e.duration.toFixed(1)}`);
    }
  }).observe({ entryTypes: ['gc'] });
  const ms = (ns) => (ns / 1e6).toFixed(2);
  setInterval(() => {
    const long = gc.long.length > 0 ? ` [${gc.long.join(', ')}]` : '';
    process.stderr.write(
      `loop delay ${new Date().toISOString().slice(11, 23)}: p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)} ms; ` +
        `gc ${gc.count} pauses ${gc.total.toFixed(1)} ms, longest ${gc.longest.toFixed(1)}${long}\n`,
    );
    delay.reset();
    gc = { count: 0, total: 0, longest: 0, long: [] };
  }, 500).unref();
}
