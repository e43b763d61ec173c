import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enginesUnderTest } from '../support/engines.js';
import { runIsolation } from './isolation.js';
import { report } from './report.js';
import { buildWorld, type World } from './world.js';

/** R1 on every engine under test: `n` generated requests, 0 leads out of scope, 0 coordinates without consent. */
export function isolationSuite(n: number, seed: number): void {
  for (const engine of enginesUnderTest()) {
    describe(`R1 isolation: ${n} generated requests (${engine}, seed ${seed})`, () => {
      let w: World | undefined;
      before(async () => {
        w = await buildWorld(engine);
      });
      after(async () => {
        await w?.cleanup();
      });
      test("no lead outside the caller's scope, no coordinates without consent, no 5xx", async () => {
        assert.ok(w, 'the world was built');
        const started = Date.now();
        const stats = await runIsolation(w, n, seed);
        report('R1', { engine, seed, ms: Date.now() - started, ...stats });
        assert.equal(stats.requests, n);
        assert.ok(
          stats.leadsChecked > n / 4,
          'the requests returned leads to check (the PostgreSQL feed may hold leads back)',
        );
        assert.equal(stats.outOfScope, 0, stats.examples.join('\n'));
        assert.equal(stats.coordinatesWithoutConsent, 0, stats.examples.join('\n'));
        assert.equal(stats.serverErrors, 0, stats.examples.join('\n'));
        assert.equal(stats.statusMismatches, 0, stats.examples.join('\n'));
      });
    });
  }
}
