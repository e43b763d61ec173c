import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { validate } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { storeLocation } from '../../src/cli/command-context.js';
import { loadConfig, loadImportConfig } from '../../src/config.js';

/**
 * The self-hosting kit (docs/self-hosting.md): .env.example names every variable the service
 * reads, with its default; the Dockerfile and compose.yaml are linted and checked for the
 * properties that matter. No image is built here: there is no container runtime on this machine.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** `.env` syntax as compose and `set -a; . ./.env` read it: NAME=value lines, `#` comments. */
function parseEnvFile(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    assert.ok(m, `.env.example:${i + 1}: not NAME=value: ${line}`);
    assert.ok(!vars.has(m[1] as string), `.env.example:${i + 1}: ${m[1]} is listed twice`);
    vars.set(m[1] as string, m[2] as string);
  }
  return vars;
}

/** Every variable name the configuration readers ask the environment for, found by asking them. */
function variablesRead(): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') seen.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  loadImportConfig(env);
  storeLocation({}, env);
  return seen;
}

/** Variables read outside the readers above, by name: `process.env.X`, `env.X`, `env['X']`. */
function variablesNamedInSource(): Set<string> {
  const names = new Set<string>();
  const src = join(ROOT, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || !statSync(join(src, file)).isFile()) continue;
    const text = readFileSync(join(src, file), 'utf8');
    for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g))
      names.add((m[1] ?? m[2]) as string);
  }
  return names;
}

describe('.env.example', () => {
  const example = parseEnvFile(read('.env.example'));

  test('lists every variable the service reads', () => {
    const missing = [...variablesRead(), ...variablesNamedInSource()].filter((n) => !example.has(n));
    assert.deepEqual([...new Set(missing)], [], 'add these to .env.example (with their defaults)');
  });

  test('its values are the defaults: loading it gives the configuration of an empty environment', () => {
    const env = Object.fromEntries(example);
    assert.deepEqual(loadConfig(env), loadConfig({}));
    assert.deepEqual(loadImportConfig(env), loadImportConfig({}));
    assert.deepEqual(storeLocation({}, env), storeLocation({}, {}));
  });

  test('every variable in it is documented in README.md or docs/', () => {
    const docs = [read('README.md'), ...readdirSync(join(ROOT, 'docs')).map((f) => read(`docs/${f}`))].join(
      '\n',
    );
    const undocumented = [...example.keys()].filter((n) => !docs.includes(`\`${n}\``));
    assert.deepEqual(undocumented, []);
  });

  test("every variable in it has a row in the README's configuration table (docs/self-hosting.md says so)", () => {
    const readme = read('README.md');
    const table = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const rows = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]));
    assert.deepEqual(
      [...example.keys()].filter((n) => !rows.has(n)),
      [],
      'add these to the Configuration table of README.md',
    );
  });
});

/** The instructions of a Dockerfile, continuation lines joined: [keyword, arguments]. */
function instructions(text: string): [string, string][] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    .map((l) => {
      const [keyword, ...rest] = l.trim().split(/\s+/);
      return [(keyword as string).toUpperCase(), rest.join(' ')];
    });
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const all = instructions(text);
  const stages = all.filter(([k]) => k === 'FROM').map(([, a]) => a);
  const last = all.slice(all.findLastIndex(([k]) => k === 'FROM'));

  test('has no problem dockerfile-utils finds (the linter behind the Dockerfile language server)', () => {
    const problems = validate(text).map((d) => `Dockerfile:${d.range.start.line + 1}: ${d.message}`);
    assert.deepEqual(problems, []);
  });

  // Rules of hadolint (not packaged in Debian 12), checked here by hand: DL3006/DL3007 tagged
  // base images, never latest; DL3002 the last USER is not root; DL3000 absolute WORKDIR;
  // DL3025 JSON form for CMD and ENTRYPOINT; DL3020 COPY, not ADD.
  test('multi-stage, base images tagged (never latest), the runtime stage runs as a non-root user', () => {
    assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
    for (const from of stages) {
      // The Dockerfile's ARG, as the build substitutes it.
      const image = (from.split(/\s+/)[0] ?? '').replace(/\$\{NODE_VERSION\}/, '20');
      assert.match(image, /:[^:]+$/, `${from}: a tagged image`);
      assert.doesNotMatch(image, /:latest$/, `${from}: not latest`);
    }
    const users = last.filter(([k]) => k === 'USER').map(([, a]) => a);
    assert.ok(users.length > 0 && !/^(root|0)(:|$)/.test(users.at(-1) as string), 'runs as a non-root USER');
    for (const [k, a] of all) {
      if (k === 'WORKDIR') assert.match(a, /^\//, `WORKDIR ${a} is absolute`);
      if (k === 'CMD' || k === 'ENTRYPOINT') assert.match(a, /^\[/, `${k} in JSON form`);
      assert.notEqual(k, 'ADD', 'COPY, not ADD');
    }
  });

  test('builds better-sqlite3, checks /healthz, and copies only files that exist', () => {
    assert.match(text, /npm rebuild better-sqlite3/);
    assert.ok(
      last.some(([k, a]) => k === 'HEALTHCHECK' && a.includes('/healthz')),
      'HEALTHCHECK on /healthz',
    );
    for (const [k, a] of all) {
      if (k !== 'COPY' || a.startsWith('--from')) continue;
      const sources = a
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'))
        .slice(0, -1);
      for (const source of sources) assert.ok(statSync(join(ROOT, source)), `COPY ${source}: exists`);
    }
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml')) as {
    services: Record<string, Record<string, unknown>>;
  };
  const example = parseEnvFile(read('.env.example'));

  test('leadline, PostgreSQL and Redis; leadline waits for both to be healthy', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['leadline', 'postgres', 'redis']);
    const leadline = compose.services.leadline as {
      depends_on: Record<string, { condition: string }>;
      environment: Record<string, string>;
    };
    assert.deepEqual(leadline.depends_on, {
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    for (const name of ['postgres', 'redis']) {
      const service = compose.services[name] as { image: string; healthcheck?: unknown };
      assert.ok(service.healthcheck, `${name} has a healthcheck`);
      assert.match(service.image, /^[a-z]+:\d/, `${name}: a versioned image`);
    }
    assert.match(leadline.environment.DATABASE_URL as string, /^postgres:\/\/[^@]+@postgres:5432\//);
    assert.equal(leadline.environment.REDIS_URL, 'redis://redis:6379');
    assert.equal(leadline.environment.HOST, '0.0.0.0', 'listens on every interface inside the container');
  });

  test('sets only variables leadline reads, and the configuration they make is valid', () => {
    const environment = (compose.services.leadline as { environment: Record<string, string> }).environment;
    const unknown = Object.keys(environment).filter((n) => !example.has(n));
    assert.deepEqual(unknown, []);
    // ${VAR:-default} as compose expands it when VAR is not set.
    const expanded = Object.fromEntries(
      Object.entries(environment).map(([k, v]) => [k, String(v).replace(/\$\{\w+:-([^}]*)\}/g, '$1')]),
    );
    const config = loadConfig(expanded);
    assert.equal(config.databaseUrl, 'postgres://leadline:leadline@postgres:5432/leadline');
    assert.equal(config.port, 3000);
  });
});
