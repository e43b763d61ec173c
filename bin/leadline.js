#!/usr/bin/env node
// The `leadline` command: runs the compiled CLI — in a checkout built by `npm install` through
// `prepare`; in an installed package shipped built (the tarball holds dist/, not the sources).
// With OTEL_EXPORTER_OTLP_ENDPOINT set, `serve` starts OpenTelemetry first: its instrumentations
// patch the modules they trace as those load (docs/operations.md#tracing).
import { tracingSettings } from '../dist/config.js';

const problems = [];
const tracing = tracingSettings(process.env, problems);
if (tracing.endpoint !== null && problems.length === 0 && process.argv.includes('serve')) {
  const { startTracing } = await import('../dist/start-tracing.js');
  startTracing(tracing.serviceName);
}
await import('../dist/cli/main.js');
