import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type EngineStore,
  enginesUnderTest,
  makeEngineStore,
  schemaUrl,
  testDatabaseUrl,
} from '../support/engines.js';
import { leadline, storeArgs } from './cli.js';

/** `members list`, `teams list`, and `keys create --member <unknown>` pointing at them (issue 22 §3). */
let dir: string;
let people: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-directory-'));
  people = join(dir, 'people.ndjson');
  writeFileSync(
    people,
    [
      { type: 'team', id: 1, name: 'Acme' },
      { type: 'team', id: 2, name: 'Globex', timeZone: 'America/New_York' },
      {
        type: 'member',
        id: 7,
        teamId: 1,
        email: 'ana@acme.test',
        name: 'Ana Ruiz',
        role: 'admin',
        pid: '70',
      },
      { type: 'member', id: 8, teamId: 1, email: 'bo@acme.test', pid: '80' },
      { type: 'member', id: 9, teamId: 2, email: 'cy@globex.test', role: 'admin', pid: '90' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

const jsonOf = (r: { stdout: string; stderr: string; status: number | null }) => {
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON document on stdout (status ${r.status}, stderr ${r.stderr})`);
  return JSON.parse(lines[0] ?? '');
};

for (const engine of enginesUnderTest()) {
  describe(`leadline members list / teams list (issue 22 §3) (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      const r = leadline([...cli, 'import', people]);
      assert.equal(r.status, 0, r.stderr);
    });
    after(() => made.cleanup());

    test('members list: every member by team then id; --team narrows; --json', () => {
      const all = jsonOf(leadline([...cli, 'members', 'list', '--json']));
      assert.deepEqual(
        all.members.map((m: { id: number; teamId: number }) => [m.teamId, m.id]),
        [
          [1, 7],
          [1, 8],
          [2, 9],
        ],
      );
      assert.deepEqual(all.members[0], {
        id: 7,
        teamId: 1,
        email: 'ana@acme.test',
        name: 'Ana Ruiz',
        role: 'admin',
      });
      const team2 = jsonOf(leadline([...cli, 'members', 'list', '--team', '2', '--json']));
      assert.deepEqual(
        team2.members.map((m: { email: string }) => m.email),
        ['cy@globex.test'],
      );
      const human = leadline([...cli, 'members', 'list']);
      assert.equal(human.status, 0, human.stderr);
      const lines = human.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^ID\s+TEAM\s+ROLE\s+E-MAIL\s+NAME$/);
      assert.equal(lines.length, 4);
      // Fixed columns: the e-mail starts at the same place on every line.
      const at = (lines[0] ?? '').indexOf('E-MAIL');
      assert.equal(lines[1]?.indexOf('ana@acme.test'), at);
      assert.equal(lines[3]?.indexOf('cy@globex.test'), at);
    });

    test('members list --team: an unknown team points to teams list; a non-number is refused', () => {
      const r = leadline([...cli, 'members', 'list', '--team', '99']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /no team 99: `leadline teams list`/);
      assert.equal(leadline([...cli, 'members', 'list', '--team', 'acme']).status, 1);
    });

    test('teams list: id, name, time zone, member count, admins', () => {
      const doc = jsonOf(leadline([...cli, 'teams', 'list', '--json']));
      assert.deepEqual(doc.teams, [
        { id: 1, name: 'Acme', timeZone: 'UTC', members: 2, admins: ['ana@acme.test'] },
        { id: 2, name: 'Globex', timeZone: 'America/New_York', members: 1, admins: ['cy@globex.test'] },
      ]);
      const human = leadline([...cli, 'teams', 'list']);
      assert.match(
        human.stdout,
        /^ID\s+NAME\s+TIME ZONE\s+MEMBERS\s+ADMINS\n1\s+Acme\s+UTC\s+2\s+ana@acme.test\n/,
      );
    });

    test('keys create says when the key is v2-only, and how to give it v1 (issue 22 §2)', () => {
      const made = leadline([...cli, 'keys', 'create', '--member', 'bo@acme.test', '--json']);
      assert.equal(made.status, 0, made.stderr);
      const id = jsonOf(made).id;
      assert.match(
        made.stderr,
        /^note: this key is v2-only\. v1 closed to new integrations at 2026-01-01T00:00:00\.000Z/,
      );
      assert.ok(made.stderr.includes(`leadline keys grant-legacy-v1 ${id}`), made.stderr);
      assert.ok(made.stderr.includes('leadline keys create --member bo@acme.test --legacy-v1'), made.stderr);
      const legacy = leadline([...cli, 'keys', 'create', '--member', 'bo@acme.test', '--legacy-v1']);
      assert.equal(legacy.status, 0, legacy.stderr);
      assert.equal(legacy.stderr, '', 'a legacy key may call v1: no note');
      const beforeFreeze = leadline([...cli, 'keys', 'create', '--member', '8'], {
        env: { LEADLINE_V1_DEPRECATED_AT: '2099-01-01T00:00:00Z' },
      });
      assert.equal(beforeFreeze.stderr, '', 'before the freeze every new key may call v1');
      const sunset = leadline([...cli, 'keys', 'create', '--member', '8', '--legacy-v1'], {
        env: { LEADLINE_V1_SUNSET_AT: '2026-02-01T00:00:00Z' },
      });
      assert.match(
        sunset.stderr,
        /^note: v1 was retired at 2026-02-01T00:00:00\.000Z \(LEADLINE_V1_SUNSET_AT\): this key calls v2 only\.$/m,
      );
    });

    test('keys create for an unknown member points to members list and teams list; nothing is made', () => {
      const r = leadline([...cli, 'keys', 'create', '--member', 'nobody@x.test', '--json']);
      assert.equal(r.status, 1);
      const doc = jsonOf(r);
      assert.match(
        doc.error.message,
        /no member "nobody@x.test": `leadline members list`.*`leadline teams list`/,
      );
      const before = jsonOf(leadline([...cli, 'keys', 'list', '--json'])).keys.length;
      assert.equal(leadline([...cli, 'keys', 'create', '--member', 'nobody@x.test']).status, 1);
      assert.equal(jsonOf(leadline([...cli, 'keys', 'list', '--json'])).keys.length, before);
    });
  });
}

describe('read-only commands never create a store (issue 22 §7)', () => {
  const readOnly = [
    ['members', 'list'],
    ['teams', 'list'],
    ['keys', 'list'],
    ['v1', 'report'],
    ['v1', 'brownout', 'list'],
    ['v1', 'status'],
  ];
  test('a missing store file: "no store at <path>", exit 1, and still no file', () => {
    const path = join(dir, 'typo', 'leadline.db');
    for (const args of readOnly) {
      const r = leadline(['--db', path, ...args]);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, new RegExp(`^no store at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
      assert.equal(r.stdout, '');
      const json = leadline(['--db', path, '--json', ...args]);
      assert.match(jsonOf(json).error.message, /^no store at /);
      assert.equal(existsSync(path), false, `${args.join(' ')} made ${path}`);
      assert.equal(existsSync(join(dir, 'typo')), false);
    }
  });

  test('PostgreSQL: a schema without a store is "no store at <url>", the password hidden, nothing made', async (t) => {
    const base = testDatabaseUrl();
    if (base === null) return t.skip('no LEADLINE_TEST_DATABASE_URL');
    const url = schemaUrl(
      base.replace('postgres://postgres@', 'postgres://postgres:secret-pw@'),
      'lt_absent_schema',
    );
    for (const args of readOnly) {
      const r = leadline(['--database-url', url, ...args]);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^no store at postgres:\/\/postgres:\*\*\*@/);
      assert.ok(!r.stderr.includes('secret-pw'));
    }
  });
});
