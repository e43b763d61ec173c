import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { enginesUnderTest } from '../support/engines.js';
import { rssOf, startServerProcess, stopAll } from '../support/server-process.js';
import { mixedRequests, startLoad } from './load.js';
import { report, saveLogs } from './report.js';
import { fixtureAt } from './world.js';

/**
 * R3: the maximum throughput of a server process under the mixed v1/v2 load (autocannon, a few
 * seconds flat out), then a soak aimed at 84% of it (at least 80% served): 0 errors, and resident
 * memory at the end within 10% of what it was after a warm-up (medians over windows).
 */
const MAX_SECONDS = Number(process.env.RELIABILITY_R3_MAX_SECONDS ?? 5);
const SOAK_SECONDS = Number(process.env.RELIABILITY_R3_SECONDS ?? 30);
// Memory is compared with its level after the warm-up: the first tenth of the soak (at least 5 s),
// by when the heap has grown to its working size.
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const WARMUP_SECONDS = Math.max(5, Math.round(SOAK_SECONDS / 10));
const CONNECTIONS = 16;
const TARGET_SHARE = 0.84;

after(stopAll);

for (const engine of enginesUnderTest()) {
  describe(`R3 soak (${engine})`, () => {
    test(`${SOAK_SECONDS} s at ≥ 80% of the measured maximum: 0 errors, RSS drift < 10%`, async () => {
      const fx = await fixtureAt(engine);
      try {
        const server = await startServerProcess(storeArgs(fx.location), { LEADLINE_RATE_LIMIT: '100000000' });
        const pid = server.child.pid as number;
        const requests = mixedRequests(fx.key(1011), 101);
        const flat = startLoad(server.url, requests, { connections: CONNECTIONS, duration: MAX_SECONDS });
        const max = (await flat.done).requests.average;
        // Aimed a little above 80%: autocannon's paced rate lands 1-2% under its aim, and R3 asks
        // for at least 80% of the maximum actually served.
        const rate = Math.ceil(max * TARGET_SHARE);
        const rss: number[] = [];
        const sampler = setInterval(() => rss.push(rssOf(pid, (p) => readFileSync(p, 'utf8'))), 1000);
        const soak = startLoad(server.url, requests, {
          connections: CONNECTIONS,
          duration: SOAK_SECONDS,
          overallRate: rate,
        });
        const result = await soak.done;
        clearInterval(sampler);
        // Medians of one-second samples over a window as long as the warm-up: the one right after
        // it and the last one. Single samples ride the GC sawtooth (±25 MiB seen here); a leak
        // moves the median.
        const warm = median(rss.slice(WARMUP_SECONDS, 2 * WARMUP_SECONDS));
        const end = median(rss.slice(-WARMUP_SECONDS));
        const drift = (end - warm) / warm;
        const errors = result.errors + result.timeouts + result.non2xx;
        report('R3', {
          engine,
          maxRps: max,
          targetRps: rate,
          soakSeconds: SOAK_SECONDS,
          achievedRps: result.requests.average,
          achievedShareOfMax: +(result.requests.average / max).toFixed(3),
          requests: result.requests.total,
          p99ms: result.latency.p99,
          errors,
          byStatus: soak.tally.byStatus,
          rssAfterWarmupMiB: +(warm / 2 ** 20).toFixed(1),
          rssMinMiB: +(Math.min(...rss) / 2 ** 20).toFixed(1),
          rssEndMiB: +(end / 2 ** 20).toFixed(1),
          rssMaxMiB: +(Math.max(...rss) / 2 ** 20).toFixed(1),
          driftPercent: +(drift * 100).toFixed(1),
        });
        saveLogs(`R3-${engine}`, server.logs);
        assert.equal(errors, 0, JSON.stringify(soak.tally));
        assert.ok(
          result.requests.average >= max * 0.8,
          `the soak served ${result.requests.average} req/s, under 80% of the maximum ${max}`,
        );
        assert.ok(drift < 0.1, `RSS drift ${(drift * 100).toFixed(1)}%`);
        assert.equal(await server.stop(), 0);
      } finally {
        await fx.cleanup();
      }
    });
  });
}
