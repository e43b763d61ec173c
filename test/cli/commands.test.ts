import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from '../support/server-process.js';
import { jsonOf, leadline, succeeded } from './cli.js';
import { dumpStore } from './store-dump.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-cmd-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('leadline migrate', () => {
  test('brings a new store to the latest version, then reports nothing to do', () => {
    const db = join(dir, 'm.db');
    const first = jsonOf(leadline(['--db', db, 'migrate', '--json']));
    assert.equal(first.from, 0);
    assert.ok(first.applied.length > 0);
    const second = jsonOf(leadline(['--db', db, 'migrate', '--json']));
    assert.deepEqual(second, { from: first.to, to: first.to, applied: [] });
  });

  test('the default store is ./data/leadline.db', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const r = spawn(process.execPath, [BIN, 'migrate'], { cwd, env: { ...process.env, DATABASE_URL: '' } });
    return once(r, 'exit').then(([code]) => {
      assert.equal(code, 0);
      assert.ok(dumpStore(join(cwd, 'data', 'leadline.db')));
    });
  });
});

describe('leadline seed', () => {
  test('deterministic for --seed, different for another seed', () => {
    const [a, b, c] = ['a.db', 'b.db', 'c.db'].map((f) => join(dir, f)) as [string, string, string];
    const args = ['seed', '--teams', '2', '--members', '5', '--leads', '300'];
    const r = leadline(['--db', a, ...args, '--seed', '42', '--json']);
    const doc = jsonOf(r);
    assert.deepEqual([doc.teams, doc.members, doc.leads], [2, 10, 300]);
    succeeded(leadline(['--db', b, ...args, '--seed', '42']));
    succeeded(leadline(['--db', c, ...args, '--seed', '43']));
    const strip = (d: Record<string, unknown[]>) =>
      (d.leads as Record<string, unknown>[]).map(({ uuid: _u, created_at: _c, ...rest }) => rest);
    assert.deepEqual(strip(dumpStore(a)), strip(dumpStore(b)));
    assert.notDeepEqual(strip(dumpStore(a)), strip(dumpStore(c)));
  });

  test('a bad count is refused', () => {
    const r = leadline(['--db', join(dir, 'x.db'), 'seed', '--teams', 'many']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /--teams/);
  });
});

describe('leadline serve: configuration is validated at start', () => {
  test('every bad variable is listed and the exit is non-zero', () => {
    const r = leadline(['--db', join(dir, 's.db'), 'serve'], {
      env: {
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        LEADLINE_V1_DEPRECATED_AT: 'yesterday',
        LEADLINE_RATE_LIMIT: '-1',
      },
    });
    assert.notEqual(r.status, 0);
    for (const name of ['PORT', 'LOG_LEVEL', 'LEADLINE_V1_DEPRECATED_AT', 'LEADLINE_RATE_LIMIT']) {
      assert.ok(r.stderr.includes(name), `${name} named in: ${r.stderr}`);
    }
  });

  test('a sunset before the deprecation time is refused', () => {
    const r = leadline(['--db', join(dir, 's.db'), 'serve'], {
      env: {
        LEADLINE_V1_DEPRECATED_AT: '2026-01-01T00:00:00Z',
        LEADLINE_V1_SUNSET_AT: '2025-01-01T00:00:00Z',
      },
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /LEADLINE_V1_SUNSET_AT/);
  });
});

describe('npm start (serve --demo) on an empty store', () => {
  test('seeds a demo, prints a working key and a curl line that answers 200', async () => {
    const db = join(dir, 'demo.db');
    const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--demo', '--port', '0'], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let stderr = '';
      const curl = await new Promise<RegExpExecArray>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const m = /curl -H "Authorization: Bearer (llk_\w+)" (http:\/\/\S+)/.exec(stderr);
          if (m) resolve(m);
        });
        child.once('exit', () => reject(new Error(`exited: ${stderr}`)));
      });
      const res = await fetch(curl[2]!, { headers: { authorization: `Bearer ${curl[1]}` } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as unknown[];
      assert.equal(body.length, 1);
    } finally {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0, 'graceful shutdown exits 0');
    }
  });
});
