import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIN } from '../support/server-process.js';

/**
 * Every `leadline` start loads the modules of the command it runs, not every command's
 * (docs/cli.md "Start-up"): `leads update` and `leads merge` load their patch checks, built on
 * TypeBox's compiler (~690 modules), when they run. `leadline --version` registers every command,
 * so a top-level import of those checks anywhere on the command's path shows here.
 */
const HOOK = fileURLToPath(new URL('../support/module-log.mjs', import.meta.url));

function modulesLoaded(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-start-up-'));
  try {
    const log = join(dir, 'modules.log');
    const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, LEADLINE_MODULE_LOG: log },
    });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('`leadline --version` loads no TypeBox module, and a few hundred modules in all', () => {
  const modules = modulesLoaded(['--version']);
  // The hook sees the command's own modules: a start that saw none would prove nothing.
  assert.ok(
    modules.some((m) => m.endsWith('/dist/cli/main.js')),
    modules.slice(0, 5).join('\n'),
  );
  assert.deepEqual(
    modules.filter((m) => m.includes('/node_modules/typebox/')),
    [],
    'TypeBox is loaded on every start again',
  );
  // 181 on 2026-11-30; 870 when the patch checks were imported at the top.
  assert.ok(modules.length < 400, `${modules.length} modules`);
});
