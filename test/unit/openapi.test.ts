import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import { generatedDocument } from '../../scripts/openapi-document.js';
import { buildApp } from '../../src/app.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { makeEngineStore } from '../support/engines.js';
import { testConfig } from '../support/helpers.js';

type Doc = {
  paths: Record<
    string,
    Record<string, { operationId: string; deprecated?: boolean; parameters?: unknown[] }>
  >;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
};
const doc = (await generatedDocument()) as Doc;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

/** `value` with every `$ref` to a component replaced by the component (the document has no cycles). */
function deref(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deref);
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const [, kind, name] = /^#\/components\/(\w+)\/(\w+)$/.exec(ref) ?? [];
    const target = (doc.components as Record<string, Record<string, unknown>>)[kind ?? '']?.[name ?? ''];
    assert.ok(target !== undefined, `${ref} exists`);
    return deref(target);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deref(v)]));
}

/** Every (schema, example, where) pair: `example` beside a `schema`, and a schema's own `examples`. */
function examples(value: unknown, where: string, out: [unknown, unknown, string][] = []) {
  if (value === null || typeof value !== 'object') return out;
  const v = value as Record<string, unknown>;
  if ('schema' in v && 'example' in v) out.push([v.schema, v.example, where]);
  if ('type' in v && Array.isArray(v.examples))
    for (const e of v.examples) out.push([v, e, `${where}.examples`]);
  for (const [k, child] of Object.entries(v)) examples(child, `${where}/${k}`, out);
  return out;
}

describe('OpenAPI document', () => {
  it('docs/openapi.json is what the route schemas generate (run `npm run openapi` after a change)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(committed, doc);
  });

  it('describes every route the app answers, and each documented operation is routed', async () => {
    const { store, cleanup } = await makeEngineStore('sqlite');
    const routes = new Set<string>();
    const config = testConfig({ LEADLINE_METRICS_TOKEN: 'a-token-of-sixteen-plus' });
    const app = await buildApp({ config, store, metrics: new Metrics(store as never) });
    try {
      // printRoutes draws a tree: a line's depth is where its '── ' is; its path, its parents' + its own.
      const stack: string[] = [];
      for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
        const at = line.indexOf('── ');
        const m = /── (\S+) \(/.exec(line);
        if (at < 0 || m?.[1] === undefined) continue;
        const depth = Math.floor(at / 4);
        stack.length = depth;
        stack[depth] = m[1];
        routes.add(stack.join(''));
      }
      // A documented path covers the routes it names: {param} stands for one segment.
      const patterns = Object.keys(doc.paths).map((p) => new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`));
      const asOpenApi = (url: string) => url.replace(/:(\w+)/g, '{$1}');
      // Catch-alls answer 404/405 problems for what is not a route: nothing to document.
      const real = [...routes].filter((r) => !r.includes('*')).map(asOpenApi);
      assert.ok(real.length > 20, real.join(' '));
      const missing = real.filter((r) => !patterns.some((p) => p.test(r)));
      assert.deepEqual(missing.sort(), [], 'routes missing from the document');
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of METHODS.filter((m) => m in item)) {
          const op = item[method] as { parameters?: { name: string; example?: string }[] };
          // A path parameter: a route parameter, or (static files) the example's own route.
          const example = path.replace(
            /\{(\w+)\}/g,
            (_, n) => op.parameters?.find((p) => p.name === n)?.example ?? n,
          );
          const routed = [path.replace(/\{(\w+)\}/g, ':$1'), example].some((url) =>
            app.hasRoute({ method: method.toUpperCase() as 'GET', url }),
          );
          assert.ok(routed, `${method} ${path} is routed`);
        }
      }
    } finally {
      await app.close();
      await cleanup();
    }
  });

  it('names every operation once; v1’s five are deprecated, nothing else is', () => {
    const ops = Object.values(doc.paths).flatMap((p) => METHODS.filter((m) => m in p).map((m) => p[m]!));
    const ids = ops.map((o) => o.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.deepEqual(
      ops
        .filter((o) => o.deprecated)
        .map((o) => o.operationId)
        .sort(),
      [
        'getLastLead',
        'getLastLeadSubTeam',
        'getLastLeadTeam',
        'getLeadsTimeRange',
        'getLeadsTimeRangeForTeam',
      ],
    );
    for (const ref of JSON.stringify(doc).matchAll(/"#\/components\/(\w+)\/([A-Za-z0-9]+)"/g)) {
      const section = (doc.components as Record<string, Record<string, unknown>>)[ref[1]!];
      assert.ok(section !== undefined && ref[2]! in section, `${ref[1]}/${ref[2]}`);
    }
    assert.ok('lead.created' in doc.webhooks);
  });

  it('every example matches its schema', () => {
    const found = examples(doc, '#');
    assert.ok(found.length >= 15, `examples found: ${found.length}`);
    for (const [schema, example, where] of found) {
      const check = Compile(deref(schema) as never);
      assert.ok(check.Check(example), `${where}: ${JSON.stringify([...check.Errors(example)][0])}`);
    }
  });
});
