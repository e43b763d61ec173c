import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { HTTPMethods } from 'fastify';
import { requestArbitrary } from '../reliability/fuzz.js';
import { enginesUnderTest } from '../support/engines.js';
import { BERLIN, buildFixture, type Fixture } from '../v1/fixtures.js';
import { metricsApp, scrape } from './scrape.js';

/** Label names leadline's own metrics may carry: each with a closed set of values. */
const LEADLINE_LABELS = new Set([
  'route',
  'method',
  'status',
  'operation',
  'outcome',
  'reason',
  // One value per process: the sunset's date, or none.
  'sunset',
  'engine',
  'state',
  'version',
  'node',
  'le',
]);
const FUZZED = Number(process.env.METRICS_FUZZ_REQUESTS ?? 1500);

for (const engine of enginesUnderTest()) {
  describe(`metrics: no key, member, e-mail or raw path in a label, after fuzzed requests (${engine})`, () => {
    let fx: Fixture;
    before(async () => {
      fx = await buildFixture(engine);
    });
    after(() => fx.cleanup());

    test(`${FUZZED} R2-style requests, then one scrape: every label value is from a closed set`, async () => {
      const { app } = await metricsApp(fx.store, {
        LEADLINE_RATE_LIMIT: '100000000',
        LEADLINE_AUTH_FAILURE_LIMIT: '1000000',
      });
      const key = fx.key(BERLIN.teamAdmin);
      const emails = fx.records.flatMap((r) =>
        Object.values(r).filter((v): v is string => typeof v === 'string' && v.includes('@')),
      );
      assert.ok(emails.length > 0);
      const sent = new Set<string>();
      const targeted = [
        `/api/pub/leads/${key}`,
        `/api/pub/leads/getLastLead/${emails[0]}`,
        `/api/pub/v2/leads/${BERLIN.member}`,
        `/${emails[0]}`,
        `/api/pub/leads/getLastLead?email=${encodeURIComponent(emails[0]!)}`,
      ];
      for (const url of targeted) {
        sent.add(url.split('?')[0]!);
        await app.inject({ url, headers: { authorization: `Bearer ${key}` } });
      }
      for (const req of fc.sample(requestArbitrary(key), { numRuns: FUZZED, seed: 17 })) {
        sent.add(String(req.url).split('?')[0]!);
        try {
          await app.inject(req);
        } catch {
          // light-my-request refused to build it (an invalid header value): never reached the app.
        }
      }
      const samples = await scrape(app);
      const secrets = [key, ...fx.keys.values(), ...emails];
      const routes = new Set<string>();
      for (const s of samples) {
        for (const [name, value] of Object.entries(s.labels)) {
          for (const secret of secrets)
            assert.ok(!value.includes(secret), `${s.name}{${name}} holds a key or e-mail`);
          assert.ok(!value.includes('@'), `${s.name}{${name}="${value}"} looks like an e-mail`);
          if (!s.name.startsWith('leadline_')) continue;
          assert.ok(LEADLINE_LABELS.has(name), `${s.name} has a label ${name}`);
          if (name === 'route') routes.add(value);
          if (name === 'status') assert.match(value, /^([1-5]\d\d|on-v1|migrated|v2-only|unused)$/);
          if (name === 'method') assert.match(value, /^[A-Z]+$/);
          if (name === 'sunset') assert.match(value, /^(none|\d{4}-\d{2}-\d{2})$/);
        }
      }
      // Every route label is a registered route pattern (or `unmatched`), never a path as sent.
      for (const route of routes) {
        if (route === 'unmatched') continue;
        const registered = (['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'] as HTTPMethods[]).some(
          (method) => app.hasRoute({ method, url: route }),
        );
        assert.ok(registered, `route label ${JSON.stringify(route)} is not a registered pattern`);
      }
      assert.ok(sent.size > 200, `the fuzz sent ${sent.size} distinct paths`);
      assert.ok(
        !routes.has(`/api/pub/v2/leads/${BERLIN.member}`) && [...routes].some((r) => r.includes('/:')),
        'a parametric route is labelled by its pattern',
      );
      assert.ok(routes.size <= 40, `${routes.size} route label values`);
      assert.ok(
        routes.has('unmatched') && routes.has('/api/pub/leads/*'),
        'the fuzz reached unrouted and v1 catch-all paths',
      );
      await app.close();
    });
  });
}
