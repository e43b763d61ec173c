/**
 * Preload for a leadline server: every 500 ms, its event-loop delay (p50, p99, max, in ms over
 * the 1 ms sampling resolution) on stderr. Only in the process that runs `serve`, so it can
 * ride in NODE_OPTIONS through a bench script:
 *
 *   NODE_OPTIONS="--import $PWD/bench/loop-delay.mjs" node --import tsx bench/big-answer-probes.ts --db <file>
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (process.argv.includes('serve')) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const ms = (ns) => (ns / 1e6).toFixed(2);
  setInterval(() => {
    process.stderr.write(
      `loop delay: p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)} ms\n`,
    );
    delay.reset();
  }, 500).unref();
}
