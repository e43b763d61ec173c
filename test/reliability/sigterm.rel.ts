import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { enginesUnderTest } from '../support/engines.js';
import { startServerProcess, stopAll } from '../support/server-process.js';
import { mixedRequests, startLoad, startProbe } from './load.js';
import { report, saveLogs } from './report.js';
import { fixtureAt } from './world.js';

/**
 * R5: SIGTERM while autocannon (in this process) keeps a server process busy. Every request the
 * server had accepted when the signal came must be answered, without a 5xx; after the signal
 * the only acceptable failure is a refused new connection.
 */
const CONNECTIONS = Number(process.env.RELIABILITY_R5_CONNECTIONS ?? 16);
const BEFORE_MS = Number(process.env.RELIABILITY_R5_BEFORE_MS ?? 3000);

after(stopAll);

for (const engine of enginesUnderTest()) {
  describe(`R5 SIGTERM under load (${engine})`, () => {
    test('0 failed in-flight requests, exit 0', async () => {
      const fx = await fixtureAt(engine);
      try {
        const server = await startServerProcess(storeArgs(fx.location), {
          LEADLINE_RATE_LIMIT: '100000000',
          LEADLINE_SHUTDOWN_GRACE_MS: '10000',
        });
        const load = startLoad(server.url, mixedRequests(fx.key(1011), 101), {
          connections: CONNECTIONS,
          duration: 60,
        });
        const probe = startProbe(server.url, '/api/pub/leads/getLastLeadTeam', fx.key(1011), 4);
        await new Promise((r) => setTimeout(r, BEFORE_MS));
        const atSignal = { responses: load.tally.responses, errors: { ...load.tally.errors } };
        const signalled = Date.now();
        const code = await server.stop('SIGTERM');
        const exitMs = Date.now() - signalled;
        await new Promise((r) => setTimeout(r, 300));
        load.instance.stop();
        await load.done;
        await probe.stop();
        // The probe's requests written before the signal: each must have had a 2xx.
        const inFlight = probe.records.filter((r) => r.sentAt < signalled);
        const inFlightFailed = inFlight.filter((r) => r.status === undefined || r.status >= 300);
        const afterSignal = probe.records.filter((r) => r.sentAt >= signalled);
        const afterTally: Record<string, number> = {};
        for (const r of afterSignal) {
          const k = r.error ?? `${r.status} ${r.contentType}`;
          afterTally[k] = (afterTally[k] ?? 0) + 1;
        }

        // The server's side: every request it logged as incoming was completed, none with a 5xx.
        const incoming = new Set<string>();
        const completed = new Map<string, number>();
        for (const line of server.logs) {
          let entry: { msg?: string; reqId?: string; res?: { statusCode?: number } };
          try {
            entry = JSON.parse(line);
          } catch {
            continue;
          }
          if (entry.msg === 'incoming request' && entry.reqId) incoming.add(entry.reqId);
          if (entry.msg === 'request completed' && entry.reqId)
            completed.set(entry.reqId, entry.res?.statusCode ?? 0);
        }
        saveLogs(`R5-${engine}`, server.logs);
        const unanswered = [...incoming].filter((id) => !completed.has(id)).length;
        const server5xx = [...completed.values()].filter((s) => s >= 500).length;
        const client5xx = Object.entries(load.tally.byStatus)
          .filter(([s]) => Number(s) >= 500)
          .reduce((n, [, c]) => n + c, 0);
        const non2xx = Object.entries(load.tally.byStatus)
          .filter(([s]) => Number(s) >= 300)
          .reduce((n, [, c]) => n + c, 0);
        // Errors other than a refused connection: a request written on an open connection that got no answer.
        const failedInFlight = Object.entries(load.tally.errors)
          .filter(([c]) => c !== 'ECONNREFUSED')
          .reduce((n, [, c]) => n + c, 0);
        report('R5', {
          engine,
          connections: CONNECTIONS,
          responsesBeforeSignal: atSignal.responses,
          responsesTotal: load.tally.responses,
          answeredAfterSignal: load.tally.responses - atSignal.responses,
          byStatus: load.tally.byStatus,
          clientErrors: load.tally.errors,
          serverIncoming: incoming.size,
          serverUnanswered: unanswered,
          server5xx,
          probeSentBeforeSignal: inFlight.length,
          probeInFlightFailed: inFlightFailed.length,
          probeInFlightFailures: inFlightFailed.map((r) => r.error ?? r.status),
          probeAfterSignal: afterTally,
          exitCode: code,
          exitMs,
        });
        assert.ok(atSignal.responses > 100, 'the server was under load when the signal came');
        assert.equal(code, 0);
        assert.equal(unanswered, 0, 'every request the server accepted was answered');
        assert.equal(server5xx, 0);
        assert.equal(inFlightFailed.length, 0, JSON.stringify(inFlightFailed));
        // After the signal: requests that arrive on a kept-alive connection are not in flight, but
        // what they get back must still be an answer of the service (problem+json with
        // Retry-After), never Fastify's bare 503. Known not met: see docs/reliability.md R5.
        const bare = afterSignal.filter(
          (r) => r.status !== undefined && r.status >= 300 && !/problem\+json/.test(r.contentType ?? ''),
        );
        report('R5-after-signal', {
          engine,
          autocannon5xx: client5xx,
          autocannonNon2xx: non2xx,
          autocannonResets: failedInFlight,
          probeBare5xx: bare.length,
        });
        if (process.env.RELIABILITY_R5_STRICT !== '0')
          assert.equal(bare.length + client5xx, 0, 'bare 503 during the drain');
      } finally {
        await fx.cleanup();
      }
    });
  });
}
