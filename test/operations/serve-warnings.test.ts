import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, makeEngineStore } from '../support/engines.js';
import { startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Issue 36: `leadline serve` warns once at start, in its log, when webhook signing secrets are
 * stored unencrypted (no LEADLINE_WEBHOOK_SECRET_KEY) and when private targets are allowed
 * (LEADLINE_WEBHOOK_ALLOW_PRIVATE) — each line naming its setting. The store plays no part: one
 * engine is enough.
 */
const KEY = Buffer.alloc(32, 9).toString('base64');

/** The warning lines (pino level 40) of the server's log up to its listening line. */
const warnings = (logs: string[]) =>
  logs
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 40)
    .map((entry) => entry.msg);

describe('serve: warnings at start', () => {
  let made: EngineStore;
  before(async () => {
    made = await makeEngineStore('sqlite');
  });
  after(async () => {
    await stopAll();
    await made?.cleanup();
  });

  const started = async (env: Record<string, string>) => {
    const server = await startServerProcess(storeArgs(made.location), env);
    try {
      return warnings(server.logs);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  };

  test('no secret key: one line naming LEADLINE_WEBHOOK_SECRET_KEY; private targets off: nothing of them', async () => {
    const lines = await started({ LEADLINE_WEBHOOK_SECRET_KEY: '', LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'false' });
    const key = lines.filter((l) => l.includes('LEADLINE_WEBHOOK_SECRET_KEY'));
    assert.equal(key.length, 1, lines.join('\n'));
    assert.match(key[0]!, /stored unencrypted/);
    assert.ok(!lines.some((l) => l.includes('LEADLINE_WEBHOOK_ALLOW_PRIVATE')), lines.join('\n'));
  });

  test('private targets allowed: one line naming LEADLINE_WEBHOOK_ALLOW_PRIVATE; with a key, none of it', async () => {
    const lines = await started({ LEADLINE_WEBHOOK_SECRET_KEY: KEY, LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const open = lines.filter((l) => l.includes('LEADLINE_WEBHOOK_ALLOW_PRIVATE'));
    assert.equal(open.length, 1, lines.join('\n'));
    assert.match(open[0]!, /private, loopback and link-local addresses/);
    assert.ok(!lines.some((l) => l.includes('LEADLINE_WEBHOOK_SECRET_KEY')), lines.join('\n'));
  });
});
