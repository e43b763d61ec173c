import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('@leadline/client’s types are what openapi-typescript makes of docs/openapi.json (npm run generate -w @leadline/client)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-client-types-'));
  try {
    const out = join(dir, 'openapi.ts');
    execFileSync(
      join(ROOT, 'node_modules/.bin/openapi-typescript'),
      [join(ROOT, 'docs/openapi.json'), '-o', out],
      {
        stdio: 'pipe',
      },
    );
    assert.equal(
      readFileSync(join(ROOT, 'packages/client/src/openapi.ts'), 'utf8'),
      readFileSync(out, 'utf8'),
      'packages/client/src/openapi.ts is stale: regenerate it',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
