import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { auth, keyFor, load, ONE_LEAD } from '../support/helpers.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * A signalled `serve` exits even when its store stops answering while it closes (docs/cli.md):
 * the usage ledger's last write then waits for ever, and before this bound the process kept
 * running, and its port, after SIGTERM (seen as a CI run that hung until its time ran out).
 */
const url = testDatabaseUrl();

describe('shutdown with a store that does not answer', {
  skip: url === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let made: Awaited<ReturnType<typeof makeEngineStore>>;
  let proxy: TcpProxy;
  let server: ServerProcess;
  let key: string;

  before(async () => {
    made = await makeEngineStore('postgres');
    await load(made.store, ONE_LEAD);
    key = await keyFor(made.store, { member: 1, legacyV1: true });
    const target = new URL(made.location.databaseUrl!);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    target.port = String(proxy.port);
    server = await startServerProcess(['--database-url', target.toString()], {
      LEADLINE_SHUTDOWN_GRACE_MS: '500',
      // Calls counted in memory until shutdown: closing must write them.
      LEADLINE_USAGE_FLUSH_MS: '600000',
    });
  });

  after(async () => {
    await server?.stop('SIGKILL');
    await proxy?.cut();
    await made?.cleanup();
  });

  test('SIGTERM ends the process (exit 1, said in the log) 10 s after the grace period', async () => {
    const res = await fetch(`${server.url}/api/pub/leads/getLastLead`, { headers: auth(key) });
    assert.equal(res.status, 200);
    proxy.freeze();
    const started = Date.now();
    server.child.kill('SIGTERM');
    const kill = setTimeout(() => server.child.kill('SIGKILL'), 30_000); // a hang fails, never hangs the run
    const code = await new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    clearTimeout(kill);
    const waited = Date.now() - started;
    assert.equal(code, 1, `exit code (null: it had to be killed); log: ${server.logs.slice(-5).join('\n')}`);
    assert.ok(waited >= 10_000 && waited < 20_000, `exited after ${waited} ms`);
    assert.ok(
      server.logs.some((line) => line.includes('shutdown did not finish; exiting')),
      server.logs.slice(-5).join('\n'),
    );
  });
});
