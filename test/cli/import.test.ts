import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import { WORKER_FROM_BYTES } from '../../src/io/import/feed.js';
import { type EngineName, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { describeRun, jsonOf, anaLead as lead, leadline, storeArgs, succeeded } from './cli.js';
import { dumpLocation, type StoreDump } from './store-dump.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function ndjson(records: object[], raw: string[] = []): string {
  const path = join(dir, `f${++n}.ndjson`);
  writeFileSync(path, [...records.map((r) => JSON.stringify(r)), ...raw].join('\n'));
  return path;
}

/** A fresh, migrated store on `engine`, removed when test `t` ends. */
async function freshStore(
  t: TestContext,
  engine: EngineName,
): Promise<{ args: string[]; dump: () => Promise<StoreDump> }> {
  const made = await makeEngineStore(engine);
  t.after(() => made.cleanup());
  return { args: storeArgs(made.location), dump: () => dumpLocation(made.location) };
}

const team = { type: 'team', id: 10, name: 'Acme', timeZone: 'Europe/Berlin' };
const ana = {
  type: 'member',
  id: 4822,
  teamId: 10,
  email: 'ana@acme.test',
  name: 'Ana Ruiz',
  role: 'admin',
  pid: '7891',
};
const bo = { type: 'member', id: 4823, teamId: 10, email: 'bo@acme.test', pid: '7892' };
const sub = {
  type: 'subteam',
  id: 3,
  teamId: 10,
  name: 'Field sales',
  members: [4822, 4823],
  admins: [4823],
};
const base = [team, ana, bo, sub, lead('1', 1000), lead('2', 2000)];

for (const engine of enginesUnderTest()) {
  describe(`leadline import (import-format.md) (${engine})`, () => {
    test('loads a file and reports what it loaded as one JSON document', async (t) => {
      const s = await freshStore(t, engine);
      const r = leadline([...s.args, 'import', ndjson(base), '--json']);
      const doc = jsonOf(r);
      assert.deepEqual(
        {
          teams: doc.teams,
          members: doc.members,
          subteams: doc.subteams,
          leads: doc.leads,
          newLeads: doc.newLeads,
        },
        { teams: 1, members: 2, subteams: 1, leads: 2, newLeads: 2 },
      );
      assert.equal((await s.dump()).leads?.length, 2);
    });

    test('idempotent: loading the same file twice leaves the same data as once', async (t) => {
      const s = await freshStore(t, engine);
      const file = ndjson(base);
      succeeded(leadline([...s.args, 'import', file]));
      const once = await s.dump();
      const again = leadline([...s.args, 'import', file, '--json']);
      assert.equal(again.status, 0, describeRun(again));
      assert.equal(jsonOf(again).newLeads, 0);
      assert.deepEqual(await s.dump(), once);
    });

    test('records in any order: a lead before its member and team resolves, and keeps its file position', async (t) => {
      const s = await freshStore(t, engine);
      const file = ndjson([lead('early', 5000), lead('mid', 5000), sub, bo, ana, team, lead('late', 5000)]);
      const r = leadline([...s.args, 'import', file]);
      assert.equal(r.status, 0, describeRun(r));
      const ids = ((await s.dump()).leads as { lead_id: string }[]).map((l) => l.lead_id);
      assert.deepEqual(ids, ['early', 'mid', 'late']);
    });

    test('reads standard input for -', async (t) => {
      const s = await freshStore(t, engine);
      const input = base.map((r) => JSON.stringify(r)).join('\n');
      const r = leadline([...s.args, 'import', '-', '--json'], { input });
      assert.equal(r.status, 0, describeRun(r));
      assert.equal(jsonOf(r).leads, 2);
    });

    test('blank lines are skipped', async (t) => {
      const s = await freshStore(t, engine);
      const r = leadline([...s.args, 'import', ndjson([team], ['', '   ', JSON.stringify(ana)])]);
      assert.equal(r.status, 0, describeRun(r));
    });
  });

  describe(`atomic: a bad record fails the whole import with file:line: reason, store untouched (${engine})`, () => {
    const cases: { name: string; lines: string[]; line: number; reason: RegExp }[] = [
      { name: 'invalid JSON', lines: ['{"type":"lead",'], line: 8, reason: /invalid JSON/ },
      { name: 'not an object', lines: ['[1,2]'], line: 8, reason: /JSON object/ },
      {
        name: 'unknown type',
        lines: [JSON.stringify({ type: 'contact', id: 1 })],
        line: 8,
        reason: /unknown record type/,
      },
      {
        name: 'unknown field',
        lines: [JSON.stringify(lead('x', 1, { colour: 'red' }))],
        line: 8,
        reason: /unknown field "colour"/,
      },
      {
        name: 'a field name in the wrong case: the same words as the API, with the field it meant',
        lines: [JSON.stringify(lead('x', 1, { jobtitle: 'CTO' }))],
        line: 8,
        reason: /:8: unknown field "jobtitle" — did you mean "jobTitle"\?$/,
      },
      {
        name: 'coordinates not in degrees: the format in words, not the pattern',
        lines: [JSON.stringify(lead('x', 1, { lat: 'north' }))],
        line: 8,
        reason: /:8: lat must be decimal degrees such as "52\.52" or "-13\.4"$/,
      },
      {
        name: 'id not a string',
        lines: [JSON.stringify(lead('x', 1, { id: 42 }))],
        line: 8,
        reason: /id must be a string/,
      },
      {
        name: 'epoch missing',
        lines: [JSON.stringify({ ...lead('x', 1), epoch: undefined })],
        line: 8,
        reason: /epoch/,
      },
      {
        name: 'epoch fractional',
        lines: [JSON.stringify(lead('x', 1.5))],
        line: 8,
        reason: /epoch must be an integer/,
      },
      {
        name: 'both kinds',
        lines: [JSON.stringify(lead('x', 1, { isScan: true }))],
        line: 8,
        reason: /exactly one of isLead/,
      },
      {
        name: 'neither kind',
        lines: [JSON.stringify(lead('x', 1, { isLead: false }))],
        line: 8,
        reason: /exactly one of isLead/,
      },
      {
        name: 'userEmail of someone else',
        lines: [JSON.stringify(lead('x', 1, { userEmail: 'bo@acme.test' }))],
        line: 8,
        reason: /userEmail/,
      },
      {
        name: 'member never defined',
        lines: [JSON.stringify(lead('x', 1, { userId: 999 }))],
        line: 8,
        reason: /member 999 is not defined/,
      },
      {
        name: 'views not numeric',
        lines: [JSON.stringify(lead('x', 1, { views: 'many' }))],
        line: 8,
        reason: /views/,
      },
      {
        name: 'bad time zone',
        lines: [JSON.stringify({ ...team, id: 11, timeZone: 'Mars/Olympus' })],
        line: 8,
        reason: /IANA/,
      },
      {
        name: 'e-mail taken',
        lines: [JSON.stringify({ ...bo, id: 5000 })],
        line: 8,
        reason: /belongs to another member/,
      },
      {
        name: 'e-mail taken, in a run of members',
        lines: [
          JSON.stringify({ ...bo, id: 5000, email: 'n1@acme.test' }),
          JSON.stringify({ ...bo, id: 5001 }),
          JSON.stringify({ ...bo, id: 5002, email: 'n2@acme.test' }),
        ],
        line: 9,
        reason: /e-mail "bo@acme.test" belongs to another member/,
      },
      {
        name: 'e-mail taken before its member gives it up further down the run',
        lines: [
          JSON.stringify({ ...bo, id: 5000, email: 'ana@acme.test' }),
          JSON.stringify({ ...ana, email: 'ana.ruiz@acme.test' }),
        ],
        line: 8,
        reason: /e-mail "ana@acme.test" belongs to another member/,
      },
      {
        name: 'member of an unknown team',
        lines: [JSON.stringify({ ...bo, id: 5001, email: 'z@z.test', teamId: 77 })],
        line: 8,
        reason: /team 77 is not defined/,
      },
      {
        name: 'subteam member from another team',
        lines: [
          JSON.stringify({ type: 'team', id: 12, name: 'Other' }),
          JSON.stringify({ type: 'member', id: 6000, teamId: 12, email: 'o@o.test', pid: '1' }),
          JSON.stringify({ ...sub, id: 4, members: [6000] }),
        ],
        line: 10,
        reason: /member 6000 is not on team 10/,
      },
    ];
    for (const c of cases) {
      test(c.name, async (t) => {
        const s = await freshStore(t, engine);
        succeeded(leadline([...s.args, 'import', ndjson(base)]));
        const before = await s.dump();
        const file = ndjson([...base, lead('ok-before-the-bad-line', 3000)], c.lines);
        const r = leadline([...s.args, 'import', file]);
        assert.notEqual(r.status, 0);
        const message = r.stderr.trim();
        assert.equal(message.split('\n').length, 1, 'one line');
        assert.ok(message.startsWith(`${file}:${c.line}: `), message);
        assert.match(message, c.reason);
        assert.deepEqual(await s.dump(), before, 'store left as it was');
      });
    }

    test('of several files, a bad second file rolls back the first', async (t) => {
      const s = await freshStore(t, engine);
      const good = ndjson(base);
      const bad = ndjson([lead('x', 1, { userId: 999 })]);
      const r = leadline([...s.args, 'import', good, bad]);
      assert.notEqual(r.status, 0);
      assert.ok(r.stderr.startsWith(`${bad}:1: `), r.stderr);
      assert.equal((await s.dump()).leads?.length, 0);
    });

    test('standard input over WORKER_FROM_BYTES: a worker takes over part-way; counts, storage order and line numbers hold', async (t) => {
      const s = await freshStore(t, engine);
      // 1 MiB of blank lines past the threshold, then 20,000 leads: the worker started at the
      // threshold is ready (~0.15 s) while this thread still prepares lines, and takes the rest
      // over at a line's end.
      const blankLines = WORKER_FROM_BYTES / 1024 + 1024;
      const blank = `${' '.repeat(1023)}\n`.repeat(blankLines);
      const head = `${[team, ana].map((r) => JSON.stringify(r)).join('\n')}\n`;
      const leads = Array.from({ length: 20_000 }, (_, i) => JSON.stringify(lead(`l${i}`, 1000 + i))).join(
        '\n',
      );
      const input = `${head}${blank}${leads}\n`;
      const r = leadline([...s.args, 'import', '--json', '-'], { input });
      assert.equal(jsonOf(r).leads, 20_000);
      const ids = (await s.dump()).leads!.map((l) => (l as { lead_id: string }).lead_id);
      assert.deepEqual(
        ids,
        Array.from({ length: 20_000 }, (_, i) => `l${i}`),
        'storage order is input order',
      );
      const bad = leadline([...s.args, 'import', '-'], { input: `${input}{"type":"lead"}\n` });
      assert.notEqual(bad.status, 0, describeRun(bad));
      assert.ok(bad.stderr.startsWith(`-:${2 + blankLines + 20_000 + 1}: `), describeRun(bad));
    });

    test('a missing file is a clear error', async (t) => {
      const s = await freshStore(t, engine);
      const r = leadline([...s.args, 'import', join(dir, 'nope.ndjson'), '--json']);
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /nope\.ndjson: cannot read the file \(no such file\)/);
      assert.ok(jsonOf(r, 1).error.message);
    });
  });
}
