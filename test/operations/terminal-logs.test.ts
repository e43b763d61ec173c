import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Issue 37 §7: on a terminal a request is one readable line — method, route pattern, status,
 * time — not two entries spread over ~13 lines; off a terminal the log stays JSON lines, both
 * entries with their fields. The terminal is a pseudo-terminal made by `script` (util-linux).
 */
after(() => stopAll());

const REQUESTS: [string, RegExp][] = [
  ['/healthz', /GET \/healthz 200 \d+\.\d ms \([0-9a-f-]{36}\)$/],
  ['/api/pub/leads/getLastLead', /GET \/api\/pub\/leads\/getLastLead 401 \d+\.\d ms \([0-9a-f-]{36}\)$/],
  ['/nothing-here', /GET \(no route\) 404 \d+\.\d ms \([0-9a-f-]{36}\)$/],
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour sequences
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

describe('logs on a terminal and off it (issue 37 §7)', () => {
  test('on a terminal: one line a request', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-tty-'));
    const command = `${process.execPath} ${BIN} --db ${join(dir, 'l.db')} serve --port 0`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', LEADLINE_PUBLIC_URL: '' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    t.after(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // ended
      }
      rmSync(dir, { recursive: true, force: true });
    });
    let base: string | undefined;
    for (let waited = 0; base === undefined && waited < 60_000; waited += 100) {
      await sleep(100);
      base = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(plain(out))?.[1];
    }
    assert.ok(base !== undefined, `never listened:\n${out}`);
    const before = plain(out).split('\n').length;
    for (const [path] of REQUESTS) await (await fetch(`${base}${path}`)).arrayBuffer();
    for (let waited = 0; waited < 10_000; waited += 100) {
      if (plain(out).includes('(no route) 404')) break;
      await sleep(100);
    }
    // Every line a request wrote: its id, or a field of Fastify's two entries (start-up lines,
    // such as the v1 phase, come and go in any order around them and are not counted).
    const lines = plain(out)
      .split('\n')
      .slice(before - 1)
      .filter((l) =>
        /[0-9a-f-]{36}|incoming request|request completed|statusCode|responseTime|req|res:/.test(l),
      );
    assert.equal(lines.length, REQUESTS.length, `one line a request:\n${plain(out)}`);
    REQUESTS.forEach(([, line], i) => {
      assert.match(lines[i] as string, line);
    });
  });

  test("off a terminal: JSON lines, both of Fastify's entries with their fields", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-json-'));
    const server = await startServerProcess(['--db', join(dir, 'l.db')], { LOG_LEVEL: 'info' });
    try {
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      for (let waited = 0; waited < 10_000; waited += 100) {
        if (server.logs.some((l) => l.includes('request completed'))) break;
        await sleep(100);
      }
      const entries = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const incoming = entries.find((e) => e.msg === 'incoming request');
      const completed = entries.find((e) => e.msg === 'request completed');
      assert.deepEqual(incoming?.req, { id: incoming?.reqId, method: 'GET', route: '/healthz' });
      assert.deepEqual(completed?.res, { statusCode: 200 });
      assert.equal(typeof completed?.responseTime, 'number');
    } finally {
      assert.equal(await server.stop(), 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
