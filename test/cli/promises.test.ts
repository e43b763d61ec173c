import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKey } from '../../src/keys/create-key.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { BIN, startServerProcess, stopAll } from '../support/server-process.js';
import { leadline, storeArgs, succeeded } from './cli.js';

/** Issue 22 §7, §8: the CLI keeps its promises — usage errors, help, version, listings, v1 status. */
const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

function oneDocument(r: { stdout: string; stderr: string; status: number | null }) {
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON document on stdout, got ${JSON.stringify(r.stdout)}`);
  return JSON.parse(lines[0] ?? '');
}

describe('usage errors, help and --version', () => {
  test('--json: a usage error is exit 1, one line on stderr and one error document on stdout', () => {
    const cases: [string[], RegExp][] = [
      [['--json', 'keys', 'create'], /required option '--member <id or e-mail>' not specified/],
      [['--json', 'no-such-command'], /unknown command 'no-such-command'/],
      [['keys', 'list', '--no-such-option', '--json'], /unknown option '--no-such-option'/],
      // A misspelt option is named (with a suggestion), before the required one it misses (issue 37).
      [
        ['keys', 'create', '--membr', '1', '--json'],
        /^unknown option '--membr' \(Did you mean --member\?\)$/,
      ],
      [['--json', 'v1', 'brownout', 'add', '--from', '2030-01-01'], /required option '--to <ISO>'/],
    ];
    // A command group without its command: commander prints the help; the document says why.
    for (const args of [['--json'], ['--json', 'keys']]) {
      const r = leadline(args);
      assert.equal(r.status, 1, args.join(' '));
      assert.deepEqual(oneDocument(r), { error: { message: 'no command given: --help lists the commands' } });
    }
    for (const [args, message] of cases) {
      const r = leadline(['--db', '/nonexistent/dir/leadline.db', ...args]);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(oneDocument(r).error.message, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line on stderr: ${r.stderr}`);
    }
    // Without --json: the message, then the command's help, on stderr; nothing on stdout.
    const human = leadline(['keys', 'create']);
    assert.equal(human.status, 1);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /^error: required option/);
    assert.match(human.stderr, /Usage: leadline keys create/);
  });

  test('--version and -V print package.json version, exit 0', () => {
    for (const flag of ['--version', '-V']) {
      const r = leadline([flag]);
      assert.equal(r.status, 0);
      assert.equal(r.stdout.trim(), version);
    }
  });

  test("a command's help marks required options and shows the global options", () => {
    const create = leadline(['keys', 'create', '--help']);
    assert.equal(create.status, 0);
    assert.match(create.stdout, /--member <id or e-mail>\s+\(required\) the member/);
    assert.doesNotMatch(create.stdout, /--label <label>\s+\(required\)/);
    assert.match(create.stdout, /Global Options:[\s\S]*--db <path>[\s\S]*--database-url <url>[\s\S]*--json/);
    const add = leadline(['v1', 'brownout', 'add', '--help']);
    assert.match(add.stdout, /--from <ISO>\s+\(required\)/);
    assert.match(add.stdout, /--to <ISO>\s+\(required\)/);
    assert.match(add.stdout, /Global Options:/);
  });
});

for (const engine of enginesUnderTest()) {
  describe(`listings, brownout times and v1 status (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      const r = leadline([
        ...cli,
        'seed',
        '--teams',
        '1',
        '--members',
        '2',
        '--leads',
        '20',
        '--seed',
        'promises',
      ]);
      assert.equal(r.status, 0, r.stderr);
    });
    after(async () => {
      await stopAll();
      await made.cleanup();
    });

    test('keys list: a header, aligned columns, the member e-mail, created, expires, last used', () => {
      const created = oneDocument(
        leadline([
          ...cli,
          'keys',
          'create',
          '--member',
          '1',
          '--label',
          'crm sync',
          '--expires',
          '2099-01-01',
          '--json',
        ]),
      );
      const doc = oneDocument(leadline([...cli, 'keys', 'list', '--json']));
      const listed = doc.keys.find((k: { id: number }) => k.id === created.id);
      assert.match(listed.memberEmail, /@/);
      assert.equal(listed.lastUsedAt, null);
      const r = leadline([...cli, 'keys', 'list']);
      assert.equal(r.status, 0, r.stderr);
      const [header, ...rows] = r.stdout.trimEnd().split('\n');
      assert.match(
        header ?? '',
        /^ID\s+PREFIX\s+STATUS\s+V1\s+MEMBER\s+CREATED\s+EXPIRES\s+LAST USED\s+LABEL$/,
      );
      const row = rows.find((l) => l.startsWith(`${created.id} `)) ?? '';
      assert.ok(row.includes(listed.memberEmail), row);
      assert.equal(row.indexOf(listed.memberEmail), header?.indexOf('MEMBER'));
      assert.equal(row.indexOf('2099-01-01 00:00Z'), header?.indexOf('EXPIRES'));
      assert.match(row, /crm sync$/);
    });

    test('brownout add: a time without an offset says so; a window all in the past is refused; nothing stored', () => {
      const noOffset = leadline([
        ...cli,
        'v1',
        'brownout',
        'add',
        '--from',
        '2031-01-01T09:00',
        '--to',
        '2031-01-01T10:00Z',
      ]);
      assert.equal(noOffset.status, 1);
      assert.match(noOffset.stderr, /--from "2031-01-01T09:00" has no offset: add Z for UTC/);
      const past = leadline([
        ...cli,
        'v1',
        'brownout',
        'add',
        '--from',
        '2020-01-01T09:00Z',
        '--to',
        '2020-01-01T10:00Z',
      ]);
      assert.equal(past.status, 1);
      assert.match(past.stderr, /entirely in the past/);
      assert.deepEqual(oneDocument(leadline([...cli, '--json', 'v1', 'brownout', 'list'])).brownouts, []);
    });

    test('v1 status: phase, the three times, active and next brownouts, keys on v1 (--json and text)', async () => {
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const add = (from: number, to: number) =>
        oneDocument(
          leadline([...cli, '--json', 'v1', 'brownout', 'add', '--from', iso(from), '--to', iso(to)]),
        );
      const active = add(now - 60_000, now + 3_600_000);
      const later = add(now + 7 * 86_400_000, now + 7 * 86_400_000 + 60_000);
      add(now + 30 * 86_400_000, now + 30 * 86_400_000 + 60_000);
      const env = { LEADLINE_V1_SUNSET_AT: '2099-06-01T00:00:00Z' };
      const doc = oneDocument(leadline([...cli, '--json', 'v1', 'status'], { env }));
      assert.equal(doc.phase, 'frozen');
      assert.equal(doc.deprecatedAt, '2026-01-01T00:00:00.000Z');
      assert.equal(doc.frozenAt, '2026-01-01T00:00:00.000Z');
      assert.equal(doc.sunsetAt, '2099-06-01T00:00:00.000Z');
      assert.deepEqual(
        doc.activeBrownouts.map((b: { id: number }) => b.id),
        [active.id],
      );
      assert.equal(doc.nextBrownout.id, later.id);
      assert.equal(doc.windowDays, 30);
      assert.deepEqual(doc.keysOnV1, []);
      const text = leadline([...cli, 'v1', 'status'], { env });
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^v1 is closed to new integrations \(since 2026-01-01T00:00:00\.000Z\)/);
      assert.match(text.stdout, /sunset at\s+2099-06-01T00:00:00\.000Z/);
      assert.match(text.stdout, new RegExp(`brownout now\\s+${active.id} `));
      assert.match(text.stdout, new RegExp(`next brownout\\s+${later.id} `));
      const sunset = oneDocument(
        leadline([...cli, '--json', 'v1', 'status'], { env: { LEADLINE_V1_SUNSET_AT: '2026-02-01' } }),
      );
      assert.equal(sunset.phase, 'sunset');
    });

    test('v1 status lists a key served on v1, not one refused on every call; serve logs the phase', async () => {
      const legacy = await createKey(made.store, { member: 1, legacyV1: true });
      const fresh = await createKey(made.store, { member: 1 });
      // No brownout in the way of the served calls: remove every window first.
      for (const b of oneDocument(leadline([...cli, '--json', 'v1', 'brownout', 'list'])).brownouts)
        succeeded(leadline([...cli, 'v1', 'brownout', 'remove', String(b.id)]));
      const server = await startServerProcess(cli, { LEADLINE_USAGE_FLUSH_MS: '100' });
      // Logged right after the listening line, which is what startServerProcess waits for.
      const phaseLog = () => server.logs.map((l) => JSON.parse(l)).find((l) => l.v1Phase !== undefined);
      for (let waited = 0; phaseLog() === undefined && waited < 10_000; waited += 50) await sleep(50);
      const phase = phaseLog();
      assert.equal(phase?.v1Phase, 'frozen');
      assert.match(phase?.msg ?? '', /^v1 is closed to new integrations/);
      for (const [key, expected] of [
        [legacy.key, 200],
        [fresh.key, 403],
      ] as const) {
        const res = await fetch(`${server.url}/api/pub/leads/getLastLead`, {
          headers: { authorization: `Bearer ${key}` },
        });
        await res.arrayBuffer();
        assert.equal(res.status, expected);
      }
      assert.equal(await server.stop(), 0);
      const doc = oneDocument(leadline([...cli, '--json', 'v1', 'status']));
      assert.deepEqual(
        doc.keysOnV1.map((k: { keyId: number }) => k.keyId),
        [legacy.id],
      );
      assert.deepEqual(doc.keysRefused, [fresh.id]);
      const report = oneDocument(leadline([...cli, '--json', 'v1', 'report']));
      const byId = (id: number) => report.keys.find((k: { keyId: number }) => k.keyId === id);
      assert.deepEqual(
        [byId(legacy.id).status, byId(legacy.id).v1Served, byId(legacy.id).v1Refused],
        ['on-v1', 1, 0],
      );
      assert.deepEqual(
        [byId(fresh.id).status, byId(fresh.id).v1Served, byId(fresh.id).v1Refused],
        ['refused', 0, 1],
      );
      const human = leadline([...cli, 'v1', 'report']).stdout;
      assert.match(human, /1 more tried and was refused on every call/);
      // A table with a header, as the other listings (issue 37): no bare tab-separated rows.
      assert.doesNotMatch(human, /\t/);
      assert.match(
        human,
        /^key +member +status +v1 +served +refused +last v1 +v2 +user agent +v1 by operation$/m,
      );
      assert.match(human, new RegExp(`^${fresh.id} +1 +refused +1 +0 +1 `, 'm'));
      assert.match(
        leadline([...cli, 'v1', 'status']).stdout,
        new RegExp(`^refused on v1  1 key tried v1 and was refused on every call: key ${fresh.id}$`, 'm'),
      );
    });
  });
}

describe('seed shows progress on a terminal, like import', () => {
  test('under a pseudo-terminal (script(1)) stderr carries the bar; through a pipe it does not', (t) => {
    if (!existsSync('/usr/bin/script')) return t.skip('script(1) is not installed');
    const dir = mkdtempSync(`${tmpdir()}/leadline-seed-tty-`);
    const db = `${dir}/leadline.db`;
    const cmd = `${process.execPath} ${BIN} --db ${db} seed --teams 1 --members 2 --leads 3000`;
    const tty = spawnSync('/usr/bin/script', ['-qec', cmd, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    });
    assert.equal(tty.status, 0, tty.stderr);
    assert.match(tty.stdout, /seeding \[.*\] 100% \| 3000\/3000 leads/);
    const piped = leadline([
      '--db',
      `${dir}/other.db`,
      'seed',
      '--teams',
      '1',
      '--members',
      '2',
      '--leads',
      '3000',
    ]);
    assert.equal(piped.status, 0);
    assert.doesNotMatch(piped.stderr, /seeding/);
    rmSync(dir, { recursive: true, force: true });
  });
});
