import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { jsonOf, leadline, storeArgs, succeeded } from './cli.js';

/** `leadline leads update` and `leads merge` (issue 39, docs/cli.md): the use cases, source cli. */
let dir: string;
let data: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-leads-cli-'));
  data = join(dir, 'leads.ndjson');
  writeFileSync(
    data,
    [
      { type: 'team', id: 51, name: 'Acme' },
      { type: 'member', id: 511, teamId: 51, email: 'ana@acme.test', role: 'admin', pid: '5110' },
      {
        type: 'lead',
        userId: 511,
        id: 'a',
        epoch: 1_700_000_000_000,
        isLead: true,
        name: 'Eva Ernst',
        views: '3',
      },
      { type: 'lead', userId: 511, id: 'b', epoch: 1_700_000_000_001, isLead: true, email: 'eva@x.test' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const engine of enginesUnderTest()) {
  describe(`leadline leads update / merge (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    let ids: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      succeeded(leadline([...cli, 'import', data]));
      ids = [];
      for await (const b of made.store.leads.scan({ teamId: 51 }, 10)) ids.push(...b.map((l) => l.uuid));
    });
    after(() => made.cleanup());

    test('update --set: the value changes, an empty value removes one, the version goes up', () => {
      const r = jsonOf(
        leadline([
          ...cli,
          'leads',
          'update',
          ids[0]!,
          '--team',
          '51',
          '--set',
          'jobTitle=CFO',
          '--set',
          'fullName=',
          '--set',
          'lastName=Ernst',
          '--json',
        ]),
      );
      assert.equal(r.version, 2);
      assert.equal(r.lead.systemFields.jobTitle, 'CFO');
      assert.equal(r.lead.systemFields.fullName, null);
      assert.equal(r.lead.v1Fields.views, '3');
    });

    test('refusals are clear messages and leave the store untouched', async () => {
      const before = await made.store.leads.byUuid({ teamId: 51 }, ids[1]!);
      const bad = leadline([...cli, 'leads', 'update', ids[1]!, '--team', '51', '--set', 'userPid=9']);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /userPid is the collector's profile id and cannot be changed/);
      const wrongTeam = leadline([...cli, 'leads', 'update', ids[1]!, '--team', '52', '--set', 'note=x']);
      assert.equal(wrongTeam.status, 1);
      assert.match(wrongTeam.stderr, /No lead/);
      const stale = leadline([
        ...cli,
        'leads',
        'update',
        ids[1]!,
        '--team',
        '51',
        '--set',
        'note=x',
        '--if-version',
        '7',
      ]);
      assert.match(stale.stderr, /is at version 1, not 7/);
      assert.deepEqual(await made.store.leads.byUuid({ teamId: 51 }, ids[1]!), before);
    });

    test('merge: the survivor takes what it lacks; the merged lead records it', async () => {
      const r = jsonOf(leadline([...cli, 'leads', 'merge', ids[0]!, ids[1]!, '--team', '51', '--json']));
      assert.equal(r.lead.systemFields.email, 'eva@x.test');
      const merged = await made.store.leads.byUuid({ teamId: 51 }, ids[1]!);
      assert.deepEqual([merged?.mergedInto, merged?.changedVia], [ids[0], 'cli']);
      const again = leadline([...cli, 'leads', 'merge', ids[0]!, ids[1]!, '--team', '51']);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /was merged into lead/);
    });
  });
}
