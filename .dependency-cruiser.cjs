/**
 * The layering of src/ (docs/architecture in README "Layout"), kept by a tool rather than by
 * memory: cli → server → app → http → storage → domain → schemas/config. A module may import
 * from its own layer and the layers below it, never above; no import cycles anywhere.
 * `npm run depcheck` (run by .ci/run) fails on any violation.
 */
const below = (layer, allowed) => ({
  name: `${layer.name}-stays-below`,
  comment: `${layer.name} imports only from ${allowed.join(', ') || 'itself'} (and packages)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: '^src/', pathNot: [layer.path, ...allowed.map((a) => LAYERS[a])] },
});

const LAYERS = {
  schemas: '^src/schemas/',
  config: '^src/config\\.ts$',
  domain: '^src/domain/',
  storage: '^src/storage/',
  delivery: '^src/delivery/',
  logger: '^src/logger\\.ts$',
  metrics: '^src/metrics/',
  http: '^src/http/',
  app: '^src/app\\.ts$',
  server: '^src/server\\.ts$',
  cli: '^src/cli/',
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle ties modules that should be read (and tested) one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'import-writing-loads-no-record-checks',
      comment:
        "The writing side of an import (import.ts, import-feed.ts) takes import-prepare.ts's types only, or " +
        'loads it when it prepares a line itself: the record checks\' schema library takes ~0.5 s to load, ' +
        'which an import the worker prepares from its start should not pay twice (docs/import-format.md).',
      severity: 'error',
      from: { path: '^src/domain/import(-feed)?\\.ts$' },
      to: { path: '^src/domain/import-prepare\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    below({ name: 'schemas', path: LAYERS.schemas }, []),
    below({ name: 'config', path: LAYERS.config }, []),
    below({ name: 'domain', path: LAYERS.domain }, ['schemas', 'config']),
    below({ name: 'metrics', path: LAYERS.metrics }, []),
    below({ name: 'storage', path: LAYERS.storage }, ['domain', 'schemas', 'config', 'metrics']),
    below({ name: 'delivery', path: LAYERS.delivery }, ['domain', 'schemas', 'config', 'logger', 'metrics']),
    below({ name: 'logger', path: LAYERS.logger }, ['config']),
    below({ name: 'http', path: LAYERS.http }, ['storage', 'delivery', 'domain', 'schemas', 'config', 'logger', 'metrics']),
    below({ name: 'app', path: LAYERS.app }, ['http', 'storage', 'delivery', 'domain', 'schemas', 'config', 'logger', 'metrics']),
    below({ name: 'server', path: LAYERS.server }, ['app', 'http', 'storage', 'delivery', 'domain', 'schemas', 'config', 'logger', 'metrics']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from the layer above is still a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
