#!/usr/bin/env node
// `prepare`: npm runs it after `npm install`/`npm ci` and before `npm pack` — and on the first
// `npx leadline …` of a checkout, which npm installs into its npx cache as a link to the checkout
// and prepares like any directory dependency. That call rebuilt a current dist/ (~20 s on an idle
// machine, issue 37 §5); the build now runs only when dist/ is missing or older than a source.
// `npm test` runs it first too (`pretest`), so a CI run that has just built does not build again.
// (test/support/server-process.ts makes the same check before a test starts the built command.)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['src', 'packages/client/src'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'packages/client/tsconfig.json'];

/** Why dist/ must be built, or null when it is current. */
function staleBecause() {
  const stamp = join(root, 'dist', '.built');
  if (!existsSync(stamp)) return 'dist/ is not built';
  const built = statSync(stamp).mtimeMs;
  const files = [
    ...CONFIGS,
    ...SOURCES.flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)),
    ),
  ];
  const newer = files.find((f) => statSync(join(root, f)).mtimeMs > built);
  return newer === undefined ? null : `${newer} changed after the last build`;
}

const why = staleBecause();
if (why === null) console.log('dist/ is current: not rebuilt');
else {
  console.log(`${why}: building`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
