import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { BIN, type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { describeRun, jsonOf, leadline, storeArgs } from './cli.js';

/**
 * `npm start` (`serve --demo`) on a store that already has data (README, "Run it"): no demo is
 * seeded and no key minted; it names a team admin and prints the `keys create` line that makes a
 * key for them — run here as printed — and a curl line that key answers. Logs: JSON lines when
 * stdout is not a terminal, readable lines (pino-pretty) on a terminal.
 */
after(() => stopAll());

const EXAMPLE = fileURLToPath(new URL('../../examples/leads.ndjson', import.meta.url));
/** The banner comes on stderr just after the server listens: wait for its last line. */
async function banner(server: ServerProcess, last: RegExp): Promise<string> {
  for (let i = 0; i < 200 && !last.test(server.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  return server.stderr();
}

const LINE = /npx leadline(.*?) keys create --member (\S+) --legacy-v1 --label "demo \(npm start\)"/;

for (const engine of enginesUnderTest()) {
  describe(`serve --demo on a store with data (${engine})`, () => {
    test('the second start names the demo admin and a keys create line that makes a working key', async (t) => {
      const made = await makeEngineStore(engine);
      t.after(() => made.cleanup());
      const args = storeArgs(made.location);
      const first = await startServerProcess(args, { LOG_LEVEL: 'info' }, ['--demo']);
      const seeded = /team admin (\S+) \(shown once/.exec(await banner(first, /-d '\{/));
      assert.ok(seeded, first.stderr());
      assert.equal(await first.stop(), 0);

      const second = await startServerProcess(args, { LOG_LEVEL: 'info' }, ['--demo']);
      const printed = await banner(second, /getLastLeadTeam/);
      assert.match(printed, /already has data, so no demo was seeded and no key is shown/);
      assert.doesNotMatch(printed, /llk_/, 'no key secret on a second start');
      const line = LINE.exec(printed);
      assert.ok(line, printed);
      assert.equal(line[2], seeded[1], 'the admin of the demo key');
      // The line as printed; its store flags are this test's store (a URL is left for the user).
      const flags = (line[1] as string).trim().split(/\s+/).filter(Boolean);
      const storeFlags = flags.includes('<url>') ? args : flags;
      assert.deepEqual(storeFlags, args);
      const created = jsonOf(
        leadline([
          ...storeFlags,
          'keys',
          'create',
          '--member',
          line[2] as string,
          '--legacy-v1',
          '--label',
          'demo (npm start)',
          '--json',
        ]),
      );
      const curl = /curl -H "Authorization: Bearer \$KEY" (http:\/\/\S+)/.exec(printed);
      assert.ok(curl, printed);
      const res = await fetch((curl[1] as string).replace(/localhost/, '127.0.0.1'), {
        headers: { authorization: `Bearer ${created.key}` },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as unknown[]).length, 1);
      assert.equal(await second.stop(), 0);
    });

    test('on imported data without a demo key, the first team admin is named', async (t) => {
      const made = await makeEngineStore(engine);
      t.after(() => made.cleanup());
      const args = storeArgs(made.location);
      const r = leadline([...args, 'import', EXAMPLE]);
      assert.equal(r.status, 0, describeRun(r));
      const server = await startServerProcess(args, { LOG_LEVEL: 'info' }, ['--demo']);
      assert.match(
        await banner(server, /getLastLeadTeam/),
        /Team admin: ana@example-co\.test \(member 70001, team 7001\)/,
      );
      assert.equal(await server.stop(), 0);
    });
  });
}

describe('npm start logs', () => {
  test('not a terminal: every stdout line is a JSON log entry', async (t) => {
    const made = await makeEngineStore('sqlite');
    t.after(() => made.cleanup());
    const server = await startServerProcess(storeArgs(made.location), { LOG_LEVEL: 'info' });
    await fetch(`${server.url}/healthz`);
    assert.equal(await server.stop(), 0);
    assert.ok(server.logs.length >= 2);
    for (const line of server.logs.filter((l) => l !== '')) assert.doesNotThrow(() => JSON.parse(line), line);
  });

  test('on a terminal: readable lines, no JSON', async (t) => {
    const made = await makeEngineStore('sqlite');
    t.after(() => made.cleanup());
    // script(1) (util-linux) gives the command a pseudo-terminal as stdout.
    const command = [process.execPath, BIN, '--db', made.location.dbPath, 'serve', '--port', '0'].join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      const plain = () => stripVTControlCharacters(out);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line within 30 s: ${out}`)), 30_000);
        child.stdout.on('data', () => {
          if (/Server listening at/.test(plain())) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`script exited ${code}: ${out}`)));
      });
      const line = plain()
        .split(/\r?\n/)
        .find((l) => l.includes('Server listening at')) as string;
      assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/);
      assert.doesNotMatch(plain(), /"level":/);
    } finally {
      // Ctrl-C on its terminal: the terminal sends SIGINT to the server, which shuts down, and
      // script(1) ends with it.
      if (child.exitCode === null) {
        child.stdin.write('\x03');
        await once(child, 'exit');
      }
    }
  });
});
