import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { keyFor, load } from '../support/helpers.js';
import { startServerProcess, stopAll } from '../support/server-process.js';
import { BERLIN, fixtureRecords } from '../v1/fixtures.js';

/**
 * Tracing end to end: `leadline serve` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a receiver in
 * this test (OTLP over HTTP, JSON encoding); one v1 request must arrive as one trace holding the
 * HTTP server span, Fastify's spans and the store's, its id the request id the answer and the
 * log carry. Without the variable nothing is exported and request ids stay UUIDs.
 */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
}

/** Redis for the rate-limit counters (.ci/run sets it; under CI=true it is there). */
const REDIS = process.env.LEADLINE_TEST_REDIS_URL || undefined;
const SERVER = 2;
const CLIENT = 3;

function receiver(): { server: Server; spans: ReceivedSpan[]; posts: string[] } {
  const spans: ReceivedSpan[] = [];
  const posts: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      posts.push(req.url ?? '');
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as {
          resourceSpans: {
            scopeSpans: { scope: { name: string }; spans: Omit<ReceivedSpan, 'scope'>[] }[];
          }[];
        };
        for (const rs of doc.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans) spans.push({ ...s, scope: ss.scope.name });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, spans, posts };
}

for (const engine of enginesUnderTest()) {
  describe(`tracing with an OTLP receiver (${engine})`, () => {
    const otlp = receiver();
    let endpoint = '';
    let key = '';
    let args: string[] = [];
    let cleanup: () => Promise<void>;
    before(async () => {
      otlp.server.listen(0, '127.0.0.1');
      await once(otlp.server, 'listening');
      endpoint = `http://127.0.0.1:${(otlp.server.address() as { port: number }).port}`;
      const made = await makeEngineStore(engine);
      cleanup = made.cleanup;
      await load(made.store, fixtureRecords());
      key = await keyFor(made.store, { member: BERLIN.teamAdmin, legacyV1: true });
      args = storeArgs(made.location);
    });
    after(async () => {
      await stopAll();
      otlp.server.close();
      await cleanup();
    });

    test('a v1 request is one trace with the HTTP, Fastify and store spans; its id is the request id', async () => {
      const server = await startServerProcess(args, {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        // The rate-limit counters in Redis, so ioredis's spans join the trace too.
        ...(REDIS === undefined
          ? {}
          : { REDIS_URL: REDIS, LEADLINE_REDIS_PREFIX: `trace-${process.pid}-${engine}` }),
      });
      const res = await fetch(`${server.url}/api/pub/leads/getLastLead`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const traceId = res.headers.get('x-request-id') ?? '';
      assert.match(traceId, /^[0-9a-f]{32}$/, 'the request id is a trace id');
      const deadline = Date.now() + 15_000;
      const names = () => new Set(otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.name));
      while (
        !(
          names().has('leads.lastOfMember') &&
          otlp.spans.some((s) => s.traceId === traceId && s.kind === SERVER)
        )
      ) {
        assert.ok(Date.now() < deadline, `spans so far: ${JSON.stringify(otlp.spans.map((s) => s.name))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const trace = otlp.spans.filter((s) => s.traceId === traceId);
      const root = trace.filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
      assert.equal(root.length, 1, 'one root: the HTTP server span');
      assert.equal(root[0]?.kind, SERVER);
      assert.equal(root[0]?.scope, '@opentelemetry/instrumentation-http');
      const ids = new Set(trace.map((s) => s.spanId));
      for (const s of trace)
        if (s !== root[0]) assert.ok(ids.has(s.parentSpanId ?? ''), `${s.name} hangs off the trace`);
      assert.ok(
        trace.some((s) => s.scope.includes('fastify')),
        'Fastify spans',
      );
      for (const op of ['keys.findByDisplay', 'leads.lastOfMember']) {
        const span = trace.find((s) => s.name === op);
        assert.ok(span, `a store span ${op}`);
        assert.equal(span.kind, CLIENT);
        assert.equal(span.scope, 'leadline');
      }
      if (REDIS !== undefined)
        assert.ok(
          trace.some((s) => s.scope === '@opentelemetry/instrumentation-ioredis' && s.kind === CLIENT),
          'a Redis span',
        );
      // Every span of the request is in this one trace: no other trace holds a store span from it.
      assert.ok(
        otlp.spans.filter((s) => s.name === 'leads.lastOfMember').every((s) => s.traceId === traceId),
      );
      assert.ok(
        server.logs.some((l) => l.includes(`"reqId":"${traceId}"`)),
        'the log line carries the trace id',
      );
      await server.stop();
    });

    test('off without OTEL_EXPORTER_OTLP_ENDPOINT: nothing exported, request ids are UUIDs', async () => {
      const before = otlp.posts.length;
      // A variable the exporter would honour if the SDK were started: it is not.
      const server = await startServerProcess(args, {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      const res = await fetch(`${server.url}/api/pub/leads/getLastLead`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await res.arrayBuffer();
      assert.match(
        res.headers.get('x-request-id') ?? '',
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(otlp.posts.length, before);
      await server.stop();
    });
  });
}
