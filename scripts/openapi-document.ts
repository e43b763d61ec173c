import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openApiDocument } from '../src/http/openapi.js';
import { Metrics } from '../src/metrics/metrics.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';

/**
 * The OpenAPI document as the app generates it from its routes (src/http/openapi.ts), with every
 * route registered: a metrics token set, so `GET /metrics` is one of them. docs/openapi.json is
 * this (`npm run openapi`); test/unit/openapi.test.ts fails when they differ.
 */
export async function generatedDocument(): Promise<Record<string, unknown>> {
  const store = SqliteStore.open(':memory:');
  await store.migrate();
  const config = loadConfig({ LEADLINE_METRICS_TOKEN: 'the-openapi-document-token' });
  const app = await buildApp({ config, store, metrics: new Metrics('sqlite') });
  try {
    await app.ready();
    return structuredClone(openApiDocument(app));
  } finally {
    await app.close();
    await store.close();
  }
}
