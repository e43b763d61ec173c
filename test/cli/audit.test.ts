import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { jsonOf, leadline, storeArgs, succeeded } from './cli.js';

/**
 * `leadline audit list` and `leadline audit export` (issue 40 item 7, docs/cli.md): the
 * operator's commands record as the operator (`keys create`, `erase`), and read the log back —
 * a team's records or every one, filtered by action, a page at a time, or all as NDJSON; bad
 * options are a clear message.
 */
let dir: string;
let data: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-audit-cli-'));
  data = join(dir, 'directory.ndjson');
  writeFileSync(
    data,
    [
      { type: 'team', id: 71, name: 'One' },
      { type: 'team', id: 72, name: 'Two' },
      { type: 'member', id: 711, teamId: 71, email: 'a@one.test', role: 'admin', pid: '1' },
      { type: 'member', id: 721, teamId: 72, email: 'b@two.test', role: 'admin', pid: '2' },
      { type: 'lead', userId: 711, id: 'x', epoch: 1_700_000_000_000, isLead: true, email: 'eve@x.test' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const engine of enginesUnderTest()) {
  describe(`leadline audit (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      succeeded(leadline([...cli, 'import', data]));
      succeeded(leadline([...cli, 'keys', 'create', '--member', '711']));
      succeeded(leadline([...cli, 'keys', 'create', '--member', '721']));
      succeeded(leadline([...cli, 'erase', '--team', '71', '--email', 'eve@x.test']));
    });
    after(() => made.cleanup());

    test('audit list: a team’s records, newest first, by the operator; --action and --limit/--before', () => {
      const { records } = jsonOf(leadline([...cli, '--json', 'audit', 'list', '--team', '71']));
      assert.deepEqual(
        records.map((r: { action: string; teamId: number; actor: unknown }) => [r.action, r.teamId, r.actor]),
        [
          ['lead.erased', 71, { via: 'operator' }],
          ['key.created', 71, { via: 'operator' }],
        ],
      );
      assert.equal(records[0].details.leads, 1);
      const erased = jsonOf(leadline([...cli, '--json', 'audit', 'list', '--action', 'lead.erased']));
      assert.equal(erased.records.length, 1);
      const every = jsonOf(leadline([...cli, '--json', 'audit', 'list']));
      assert.equal(every.records.length, 3);
      const page = jsonOf(leadline([...cli, '--json', 'audit', 'list', '--limit', '2']));
      assert.deepEqual([page.records.length, page.more], [2, true]);
      const rest = jsonOf(leadline([...cli, '--json', 'audit', 'list', '--before', page.records[1].id]));
      assert.deepEqual(
        rest.records.map((r: { id: string }) => r.id),
        [every.records[2].id],
      );
      const none = jsonOf(leadline([...cli, '--json', 'audit', 'list', '--since', '2999-01-01']));
      assert.deepEqual(none.records, []);
      const human = succeeded(leadline([...cli, 'audit', 'list', '--team', '72']));
      assert.match(human.stdout, /key\.created/);
      assert.doesNotMatch(human.stdout, /lead\.erased/);
    });

    test('audit export: every matching record as NDJSON; no e-mail in it', () => {
      const out = succeeded(leadline([...cli, 'audit', 'export'])).stdout;
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { action: string });
      assert.deepEqual(
        lines.map((l) => l.action),
        ['lead.erased', 'key.created', 'key.created'],
      );
      assert.ok(!out.includes('@'), 'no e-mail in the audit log');
      const ofTeam = succeeded(leadline([...cli, 'audit', 'export', '--team', '72']))
        .stdout.trim()
        .split('\n');
      assert.equal(ofTeam.length, 1);
    });

    test('bad options are a clear message', () => {
      for (const [args, message] of [
        [['--action', 'lead.eaten'], /--action "lead.eaten" is not one of/],
        [['--since', 'yesterday'], /--since "yesterday" is not an ISO date/],
        [['--team', 'x'], /--team "x" is not a number/],
        [['--limit', '0'], /--limit must be 1 to 1000/],
      ] as const) {
        const r = leadline([...cli, 'audit', 'list', ...args]);
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, message);
      }
    });
  });
}
