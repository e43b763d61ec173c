import { register } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts OpenTelemetry tracing (docs/operations.md#tracing). bin/leadline.js calls this before it
 * loads anything else, and only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the instrumentations
 * patch modules as they load. The exporter follows the standard OTEL_* variables (protocol
 * http/protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says otherwise). HTTP (the server span),
 * Fastify (its hooks and handler) and ioredis (the rate-limit counters) are instrumented by their
 * libraries; the store's calls — postgres.js and better-sqlite3 have no instrumentation — by
 * src/storage/observed-store.ts.
 */
export function startTracing(serviceName: string): NodeSDK {
  // ES modules importing a CommonJS package (ioredis) bypass require hooks: OpenTelemetry's
  // loader hook (import-in-the-middle) sees those imports.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const quiet = new Set(['/healthz', '/readyz', '/metrics']);
  const sdk = new NodeSDK({
    serviceName,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => quiet.has(req.url?.split('?')[0] ?? ''),
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: (r) => quiet.has(r.url),
      }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}
