import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { openApiDocument } from '../../src/http/openapi.js';

describe('OpenAPI document', () => {
  it('docs/openapi.json is what the route schemas generate (run `npm run openapi` after a change)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(committed, openApiDocument());
  });

  it('names every v2 operation, and every schema it refers to exists', () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    assert.deepEqual(ops.sort(), ['createLead', 'getLead', 'getMe', 'leadChanges', 'searchLeads']);
    for (const ref of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([A-Za-z0-9]+)"/g)) {
      assert.ok(ref[1] !== undefined && ref[1] in doc.components.schemas, `schema ${ref[1]}`);
    }
  });
});
