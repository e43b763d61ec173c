import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { V2Lead } from '../../src/schemas/v2.js';
import { storeArgs } from '../cli/cli.js';
import { type EngineName, enginesUnderTest } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { checkAnswer, newStats, runInjectFuzz } from './fuzz.js';
import { type RawAnswer, rawCaseArbitrary, sendRaw } from './fuzz-socket.js';
import { textRequestArbitrary } from './fuzz-text.js';
import { report, saveLogs } from './report.js';
import { fixtureAt } from './world.js';

/**
 * Answers that were once Fastify's own JSON instead of problem+json, without nosniff (fixed in
 * a5f9cc0, docs/reliability.md): a run with `strict: false` tolerates them — counted and
 * reported — for measuring an older build. Every suite in the repository runs strict.
 */
export const KNOWN_NOT_PROBLEM = ['400 FST_ERR_BAD_URL', '414 FST_ERR_MAX_PARAM_LENGTH'];
export const KNOWN_NO_NOSNIFF = [...KNOWN_NOT_PROBLEM, '400 ct:application/json', '414 ct:application/json'];

export interface FuzzPlan {
  inject: number;
  /** R12: requests with the valid key whose only oddity is their text. */
  text: number;
  socket: number;
  seed: number;
  strict: boolean;
  slow: boolean;
}

const problemCode = (body: string): string => {
  try {
    return String((JSON.parse(body) as { code?: unknown }).code);
  } catch {
    return '?';
  }
};

/** R2 on every engine under test: the answers must not depend on what the store can hold (R12). */
export function fuzzSuite(plan: FuzzPlan): void {
  for (const engine of enginesUnderTest()) describe(`R2 [${engine}]`, () => fuzzEngine(plan, engine));
}

function fuzzEngine(plan: FuzzPlan, engine: EngineName): void {
  let fx: Awaited<ReturnType<typeof fixtureAt>>;
  let app: FastifyInstance;
  let server: ServerProcess;
  let port = 0;
  before(async () => {
    fx = await fixtureAt(engine);
    app = await makeApp(fx.store);
    server = await startServerProcess(storeArgs(fx.location), {
      LEADLINE_RATE_LIMIT: '100000000',
      LEADLINE_AUTH_FAILURE_LIMIT: '1000000',
    });
    port = Number(new URL(server.url).port);
  });
  after(async () => {
    if (server !== undefined) saveLogs(`R2-${engine}`, server.logs);
    await app?.close();
    await stopAll();
    await fx?.cleanup();
  });

  describe(`R2 fuzzing: ${plan.inject} generated requests in process (seed ${plan.seed})`, () => {
    test('no 5xx; every error problem+json', async () => {
      const started = Date.now();
      const stats = await runInjectFuzz(app, fx.key(1011), plan.inject, plan.seed);
      const { examples, ...figures } = stats;
      report('R2-inject', { engine, ms: Date.now() - started, ...figures });
      assert.equal(stats.generated, plan.inject);
      assert.equal(stats.serverErrors, 0, examples.join('\n'));
      const unknown = Object.entries(stats.notProblemJsonKinds).filter(
        ([k]) => plan.strict || !KNOWN_NOT_PROBLEM.includes(k),
      );
      assert.deepEqual(unknown, [], examples.join('\n'));
      // Security headers on every answer; CORS off; nothing personal cacheable by a shared cache.
      const noNosniff = Object.entries(stats.missingNosniffKinds).filter(
        ([k]) => plan.strict || !KNOWN_NO_NOSNIFF.includes(k),
      );
      assert.deepEqual(noNosniff, [], examples.join('\n'));
      assert.equal(stats.corsHeaders, 0, examples.join('\n'));
      assert.equal(stats.cacheablePersonal, 0, examples.join('\n'));
    });
  });

  describe(`R12: ${plan.text} valid-key requests with control characters in bodies and query strings (seed ${plan.seed})`, () => {
    test('no 5xx; every error problem+json naming a member; what is stored comes back as sent', async () => {
      const started = Date.now();
      const stats = newStats();
      const requests = fc.sample(textRequestArbitrary(fx.key(1011)), { numRuns: plan.text, seed: plan.seed });
      let stored = 0;
      let refusedText = 0;
      for (const { options, created } of requests) {
        stats.generated++;
        const res = await app.inject(options);
        stats.sent++;
        checkAnswer(
          res,
          String(options.method),
          stats,
          `${options.method} ${options.url} ${options.payload ?? ''}`,
        );
        if (res.statusCode === 201 && created !== null) {
          stored++;
          const lead = (JSON.parse(res.body) as { data: V2Lead }).data;
          const sent = created.systemFields;
          assert.equal(lead.systemFields.fullName, sent.fullName, 'fullName stored as sent');
          assert.equal(lead.systemFields.note, sent.note ?? null, 'note stored as sent');
        }
        if (res.statusCode === 400 && /U\+0000|unpaired surrogate/.test(res.body)) refusedText++;
      }
      const { examples, ...figures } = stats;
      report('R12-text', { engine, ms: Date.now() - started, ...figures, stored, refusedText });
      assert.equal(stats.serverErrors, 0, examples.join('\n'));
      assert.equal(stats.notProblemJson, 0, examples.join('\n'));
      // The sample must reach the store and meet the rule, or it proves nothing.
      assert.ok(stored > 0 && refusedText > 0, `stored ${stored}, refused for their text ${refusedText}`);
    });
  });

  describe(`R2 fuzzing: ${plan.socket} raw requests to a server process (seed ${plan.seed})`, () => {
    test('no 5xx; every error problem+json; whole requests answered; the process stays up', async () => {
      const started = Date.now();
      const cases = fc.sample(rawCaseArbitrary(fx.key(1011)), { numRuns: plan.socket, seed: plan.seed });
      const stats = newStats();
      let unanswered = 0;
      let timedOut = 0;
      let closedWithoutAnswer = 0;
      let next = 0;
      const check = (c: (typeof cases)[number], a: RawAnswer) => {
        stats.sent++;
        if (a.timedOut) timedOut++;
        if (a.status === null) {
          closedWithoutAnswer++;
          if (c.whole) {
            unanswered++;
            if (stats.examples.length < 20)
              stats.examples.push(`unanswered: ${c.bytes.toString('latin1').slice(0, 300)}`);
          }
          return;
        }
        stats.byStatus[a.status] = (stats.byStatus[a.status] ?? 0) + 1;
        if (a.status >= 500) {
          stats.serverErrors++;
          if (stats.examples.length < 20)
            stats.examples.push(
              `${a.status}: ${c.bytes.toString('latin1').slice(0, 300)} → ${a.body.slice(0, 200)}`,
            );
        }
        if (
          a.status >= 400 &&
          !c.head &&
          a.body.length > 0 &&
          !/^application\/problem\+json/.test(a.contentType ?? '')
        ) {
          stats.notProblemJson++;
          const kind = `${a.status} ${problemCode(a.body)}`;
          stats.notProblemJsonKinds[kind] = (stats.notProblemJsonKinds[kind] ?? 0) + 1;
          if (stats.examples.length < 20)
            stats.examples.push(`not problem+json ${kind}: ${c.bytes.toString('latin1').slice(0, 200)}`);
        }
      };
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (;;) {
            const i = next++;
            const c = cases[i];
            if (c === undefined) return;
            stats.generated++;
            check(c, await sendRaw(port, c.bytes, 15_000, !c.whole));
          }
        }),
      );
      const alive = server.child.exitCode === null && server.child.signalCode === null;
      const health = await fetch(`${server.url}/healthz`).then((r) => r.status);
      const { examples, ...figures } = stats;
      report('R2-socket', {
        engine,
        ms: Date.now() - started,
        ...figures,
        closedWithoutAnswer,
        wholeRequestsUnanswered: unanswered,
        timedOut,
        alive,
        health,
      });
      assert.ok(alive, 'the server process is alive');
      assert.equal(health, 200);
      assert.equal(stats.serverErrors, 0, examples.join('\n'));
      assert.equal(unanswered, 0, examples.join('\n'));
      assert.equal(timedOut, 0);
      const unknown = Object.entries(stats.notProblemJsonKinds).filter(
        ([k]) => plan.strict || !KNOWN_NOT_PROBLEM.includes(k),
      );
      assert.deepEqual(unknown, [], examples.join('\n'));
    });
  });

  describe('R2 limits in place', () => {
    const body = (n: number) => {
      const head = '{"filters":{"teamId":101},"cursor":"';
      return `${head}${'a'.repeat(n - head.length - 2)}"}`;
    };
    const post = (text: string) =>
      Buffer.from(
        'POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `Authorization: Bearer ${fx.key(1011)}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );

    test('a body over 64 KiB: 413 problem+json; 64 KiB exactly is read', async () => {
      // Not half-closed after writing: Node drops an answer still being made (a PostgreSQL query)
      // once the client has ended its side; `Connection: close` ends the exchange instead.
      const over = await sendRaw(port, post(body(64 * 1024 + 1)), 15_000, false);
      const at = await sendRaw(port, post(body(64 * 1024)), 15_000, false);
      report('R2-limits-body', { over64KiB: over.status, at64KiB: at.status });
      assert.equal(over.status, 413);
      assert.match(over.contentType ?? '', /^application\/problem\+json/);
      assert.notEqual(at.status, 413, 'a 64 KiB body is within the limit');
      assert.ok((at.status ?? 500) < 500);
    });

    test('headers over 16 KiB: 431 problem+json; under it: read', async () => {
      const head = (n: number) =>
        Buffer.from(
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(n)}\r\nConnection: close\r\n\r\n`,
        );
      const over = await sendRaw(port, head(16 * 1024));
      const under = await sendRaw(port, head(15 * 1024));
      report('R2-limits-headers', { over16KiB: over.status, under16KiB: under.status });
      assert.equal(over.status, 431);
      assert.match(over.contentType ?? '', /^application\/problem\+json/);
      assert.equal(under.status, 200);
    });

    test('timeouts configured: headers 10 s, whole request 30 s, idle keep-alive 72 s, checked every second', () => {
      assert.equal(app.server.headersTimeout, 10_000);
      assert.equal(app.server.requestTimeout, 30_000);
      // Above a load balancer's idle timeout (60 s for AWS ALB): the balancer closes idle connections first.
      assert.equal(app.server.keepAliveTimeout, 72_000);
      assert.equal(
        (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval,
        1_000,
      );
      report('R2-limits-timeouts', {
        headersTimeoutMs: app.server.headersTimeout,
        requestTimeoutMs: app.server.requestTimeout,
        keepAliveTimeoutMs: app.server.keepAliveTimeout,
      });
    });

    if (plan.slow) {
      test('slow clients are cut off: headers a byte a second, a body a byte a second, an idle keep-alive', async () => {
        const trickle = (head: string, then: string) =>
          new Promise<{ ms: number; status: number | null; contentType: string | null }>((resolve) => {
            const started = Date.now();
            const socket = (async () => {
              const { connect } = await import('node:net');
              return connect(port, '127.0.0.1');
            })();
            void socket.then((s) => {
              let got = '';
              s.write(head);
              let i = 0;
              const timer = setInterval(() => {
                if (s.writable) s.write(then[i++ % then.length] as string);
              }, 1000);
              s.on('data', (d) => {
                got += d.toString('latin1');
              });
              s.on('error', () => {});
              s.on('close', () => {
                clearInterval(timer);
                const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
                const ct = /\r\ncontent-type: ([^\r\n]*)/i.exec(got);
                resolve({
                  ms: Date.now() - started,
                  status: m ? Number(m[1]) : null,
                  contentType: ct?.[1] ?? null,
                });
              });
              setTimeout(() => s.destroy(), 120_000).unref();
            });
          });
        const idle = new Promise<number>((resolve) => {
          void import('node:net').then(({ connect }) => {
            const started = Date.now();
            const s = connect(port, '127.0.0.1', () =>
              s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'),
            );
            s.on('data', () => {});
            s.on('error', () => {});
            s.on('close', () => resolve(Date.now() - started));
          });
        });
        const [headers, body, idleMs] = await Promise.all([
          trickle(
            'GET /healthz HTTP/1.1\r\nHost: x\r\n',
            'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
          ),
          trickle(
            `POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${fx.key(1011)}\r\nContent-Length: 1000\r\n\r\n`,
            ' ',
          ),
          idle,
        ]);
        report('R2-limits-slow', {
          slowHeaders: headers,
          slowBody: body,
          idleKeepAliveClosedAfterMs: idleMs,
        });
        assert.ok(headers.ms < 20_000, `slow headers cut after ${headers.ms} ms`);
        assert.ok(body.ms < 40_000, `slow body cut after ${body.ms} ms`);
        assert.ok(idleMs > 60_000 && idleMs < 100_000, `idle keep-alive closed after ${idleMs} ms`);
        for (const r of [headers, body])
          if (r.status !== null) assert.match(r.contentType ?? '', /^application\/problem\+json/);
      });
    }
  });
}
