/**
 * The layering of src/ (README "Layout"), kept by a tool rather than by memory. From the bottom:
 * schemas and config; shared (the kernel every slice uses); the feature slices — leads, directory,
 * keys, rate-limit, retirement, webhooks, import, console, privacy, retention, audit — each with its port, pure rules and use
 * cases, and store.ts gathering the ports; then the rooms that do I/O for them (storage, delivery,
 * io, demo), the transports (http, then app), and the composition (open-store, server, cli). A
 * module imports from its own room and the rooms below it, never above; no import cycles anywhere.
 * `npm run depcheck` (run by .ci/run) fails on any violation, and on a src/ file no room claims.
 * Transports never import src/storage/ (below); beyond imports, they write through the slices' use
 * cases only — no call of a port's writing method under src/http/ or src/cli/, kept by
 * test/architecture/use-cases.test.ts, which reads the ports.
 */
const SLICES = '(leads|directory|keys|rate-limit|retirement|webhooks|import|console|privacy|retention|audit)';

const ROOMS = {
  schemas: '^src/schemas/',
  config: '^src/config\\.ts$',
  shared: '^src/shared/',
  slices: `^src/${SLICES}/|^src/store\\.ts$`,
  logger: '^src/logger\\.ts$',
  metrics: '^src/metrics/',
  storage: '^src/storage/',
  delivery: '^src/delivery/',
  io: '^src/io/',
  demo: '^src/demo/',
  http: '^src/http/',
  app: '^src/app\\.ts$',
  openStore: '^src/open-store\\.ts$',
  server: '^src/server\\.ts$',
  tracing: '^src/start-tracing\\.ts$',
  cli: '^src/cli/',
};

const below = (room, allowed) => ({
  name: `${room}-stays-below`,
  comment: `${room} imports only from ${allowed.join(', ') || 'itself'} (and packages)`,
  severity: 'error',
  from: { path: ROOMS[room] },
  to: { path: '^src/', pathNot: [ROOMS[room], ...allowed.map((a) => ROOMS[a])] },
});

const PURE = [ROOMS.shared, ROOMS.slices];

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
      name: 'every-file-has-a-room',
      comment: 'A src/ file outside every room has no rule: give its folder one here.',
      severity: 'error',
      from: { path: '^src/', pathNot: Object.values(ROOMS) },
      to: {},
    },
    {
      name: 'pure-layer-does-no-io',
      comment:
        'The shared kernel and the slices hold rules and use cases over the store ports: files, ' +
        'threads, processes and the network belong to storage/, delivery/ and io/.',
      severity: 'error',
      from: { path: PURE },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|worker_threads|child_process|cluster|process|http|https|http2|dgram|dns|dns/promises|tls|stream|readline)$',
      },
    },
    {
      name: 'address-parsing-only',
      comment: "webhooks/address.ts takes node:net's address parsing (isIP, BlockList), never a socket.",
      severity: 'error',
      from: { path: PURE, pathNot: '^src/webhooks/address\\.ts$' },
      to: { dependencyTypes: ['core'], path: '^(node:)?net$' },
    },
    {
      name: 'slices-take-their-ports',
      comment:
        'A use case takes the ports it needs ({ keys: KeyStore; directory: DirectoryStore }), not the ' +
        'whole Store: src/store.ts gathers the slices, so a slice importing it would tie every slice to every other.',
      severity: 'error',
      from: { path: `^src/${SLICES}/` },
      to: { path: '^src/store\\.ts$' },
    },
    {
      name: 'transports-use-no-storage',
      comment:
        'http/ and cli/ reach a store only through its ports (src/store.ts) and the use cases; the ' +
        'engine is chosen in open-store.ts and server.ts.',
      severity: 'error',
      from: { path: [ROOMS.http, ROOMS.cli, ROOMS.app] },
      to: { path: ROOMS.storage },
    },
    {
      name: 'import-writing-loads-no-record-checks',
      comment:
        "The writing side of an import (io/import/run-import.ts, feed.ts) takes import/prepare.ts's types only, or " +
        "loads it when it prepares a line itself: the record checks' schema library takes ~0.5 s to load, " +
        'which an import the worker prepares from its start should not pay twice (docs/import-format.md).',
      severity: 'error',
      from: { path: '^src/io/import/(run-import|feed)\\.ts$' },
      to: { path: '^src/import/prepare\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    below('schemas', []),
    below('config', []),
    below('shared', ['schemas', 'config']),
    below('slices', ['shared', 'schemas', 'config']),
    below('logger', ['config']),
    below('metrics', []),
    below('storage', ['slices', 'shared', 'schemas', 'config', 'metrics']),
    below('delivery', ['slices', 'shared', 'schemas', 'config', 'logger', 'metrics']),
    below('io', ['slices', 'shared', 'schemas', 'config']),
    below('demo', ['slices', 'shared', 'schemas', 'config']),
    below('http', ['delivery', 'slices', 'shared', 'schemas', 'config', 'logger', 'metrics']),
    below('app', ['http', 'delivery', 'slices', 'shared', 'schemas', 'config', 'logger', 'metrics']),
    below('openStore', ['storage', 'slices', 'shared', 'schemas', 'config', 'metrics']),
    below('server', ['app', 'openStore', 'http', 'storage', 'delivery', 'slices', 'shared', 'schemas', 'config', 'logger', 'metrics']),
    below('tracing', []),
    below('cli', ['server', 'openStore', 'app', 'http', 'delivery', 'io', 'demo', 'slices', 'shared', 'schemas', 'config', 'logger', 'metrics']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from the room above is still a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
