import assert from 'node:assert/strict';
import { test } from 'node:test';
import { abortsSqliteStatements, startWarnings } from '../../src/cli/serve-warnings.js';
import { loadWebhookConfig } from '../../src/config.js';

/**
 * From Node 24.19.0, better-sqlite3 12's statements abort the process when collected
 * (nodejs/node#65446): `serve` on a SQLite store says so at start; on PostgreSQL it does not.
 */
const safe = loadWebhookConfig({ LEADLINE_WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') });

test('the Node versions that abort SQLite statements: 24.19.0 and later', () => {
  const judged = ['20.19.0', '20.20.2', '22.23.3', '24.18.1', '24.19.0', '24.21.0', '26.1.0'].map((v) => [
    v,
    abortsSqliteStatements(v),
  ]);
  assert.deepEqual(judged, [
    ['20.19.0', false],
    ['20.20.2', false],
    ['22.23.3', false],
    ['24.18.1', false],
    ['24.19.0', true],
    ['24.21.0', true],
    ['26.1.0', true],
  ]);
});

test('serve warns of it with a SQLite store only, naming the version and the README section', () => {
  const [line, ...rest] = startWarnings(safe, { node: '24.21.0', sqlite: true });
  assert.deepEqual(rest, []);
  assert.match(line!, /^Node\.js 24\.21\.0 aborts .*nodejs\/node#65446.*README, "Node\.js"$/);
  assert.deepEqual(startWarnings(safe, { node: '24.21.0', sqlite: false }), []);
  assert.deepEqual(startWarnings(safe, { node: '22.23.3', sqlite: true }), []);
});
