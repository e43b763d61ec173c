import { randomUUID } from 'node:crypto';
import { type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/**
 * What the service's own code does for tracing (docs/operations.md#tracing): the SDK itself is
 * started by src/start-tracing.ts before anything else loads, only when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set. Without it these calls reach OpenTelemetry's no-op API and are never made (server.ts).
 */

export function storeTracer(): Tracer {
  return trace.getTracer('leadline');
}

/** The request id when tracing is on: the trace id of the request's span, so logs and traces meet. */
export function traceIdOrUuid(): string {
  const context = trace.getActiveSpan()?.spanContext();
  return context !== undefined && trace.isSpanContextValid(context) ? context.traceId : randomUUID();
}

/** A span for one store call, a child of the request's (OpenTelemetry database conventions). */
export function startStoreSpan(tracer: Tracer, operation: string, engine: string): Span {
  return tracer.startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system': engine === 'postgres' ? 'postgresql' : 'sqlite',
      'db.operation.name': operation,
    },
  });
}

export function endStoreSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
