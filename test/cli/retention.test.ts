import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { jsonOf, leadline, storeArgs, succeeded } from './cli.js';

/**
 * `leadline retention` (issue 40 §6, docs/cli.md, docs/privacy.md "Retention"): the operator sets,
 * lists and clears a team's policy; `run --dry-run` counts and changes nothing; `run` erases the
 * due leads with receipts requested by the policy; bad input is a clear message, exit 1, and
 * changes nothing.
 */
const DAY = 86_400_000;
let dir: string;
let data: string;
const lead = (userId: number, id: string, ageDays: number) => ({
  type: 'lead',
  userId,
  id,
  epoch: Date.now() - ageDays * DAY,
  isLead: true,
  name: `Kept ${id}`,
});
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-retention-cli-'));
  data = join(dir, 'leads.ndjson');
  writeFileSync(
    data,
    [
      { type: 'team', id: 81, name: 'Eighty-one' },
      { type: 'team', id: 82, name: 'Eighty-two' },
      { type: 'member', id: 811, teamId: 81, email: 'a@r81.test', role: 'admin', pid: '1' },
      { type: 'member', id: 821, teamId: 82, email: 'b@r82.test', role: 'admin', pid: '2' },
      lead(811, 'old-a', 200),
      lead(811, 'old-b', 95),
      lead(811, 'new', 5),
      lead(821, 'other', 300),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

const leadsOf = async (made: EngineStore, teamId: number) => {
  const out: string[] = [];
  for await (const b of made.store.leads.scan({ teamId }, 10)) out.push(...b.map((l) => l.id));
  return out.sort();
};

for (const engine of enginesUnderTest()) {
  describe(`leadline retention (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      succeeded(leadline([...cli, 'import', data]));
    });
    after(() => made.cleanup());

    test('bad input: a clear message, exit 1, nothing set or erased', async () => {
      const refused = (args: string[], message: RegExp, env?: Record<string, string>) => {
        const r = leadline([...cli, 'retention', ...args], env === undefined ? {} : { env });
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, message);
      };
      refused(['set', '--team', '81', '--days', '0'], /--days: a whole number of days from 1 to 36500/);
      refused(['set', '--team', '81', '--days', 'soon'], /--days: a whole number of days/);
      refused(['set', '--team', '999', '--days', '30'], /No team 999/);
      refused(['set', '--team', 'x', '--days', '30'], /--team "x" is not a team id/);
      refused(['clear', '--team', '81'], /team 81 has no retention policy/);
      refused(['run', '--team', '81'], /team 81 has no retention policy/);
      refused(['run'], /LEADLINE_ERASURE_RECEIPT_DAYS/, { LEADLINE_ERASURE_RECEIPT_DAYS: '0' });
      assert.deepEqual(jsonOf(leadline([...cli, 'retention', 'list', '--json'])).policies, []);
      assert.deepEqual(await leadsOf(made, 81), ['new', 'old-a', 'old-b']);
    });

    test('set and list; a dry run counts; a run erases the due leads with receipts; clear', async () => {
      const set = jsonOf(leadline([...cli, 'retention', 'set', '--team', '81', '--days', '90', '--json']));
      assert.deepEqual([set.teamId, set.days, set.basis, set.lastRunAt], [81, 90, 'last-change', null]);
      const human = succeeded(leadline([...cli, 'retention', 'list'])).stdout;
      assert.match(human, /TEAM\s+DAYS\s+SET\s+LAST RUN\s+ERASED\n81\s+90\s/);

      const dry = jsonOf(leadline([...cli, 'retention', 'run', '--dry-run', '--json']));
      assert.deepEqual(
        dry.teams.map((t: { teamId: number; due: number; erased: number }) => [t.teamId, t.due, t.erased]),
        [[81, 2, 0]],
      );
      assert.equal(dry.dryRun, true);
      assert.equal(dry.receipts.pruned, 0);
      assert.deepEqual(await leadsOf(made, 81), ['new', 'old-a', 'old-b']);

      const run = jsonOf(leadline([...cli, 'retention', 'run', '--json']));
      const [team] = run.teams;
      assert.deepEqual([team.teamId, team.due, team.erased, team.erasureIds.length], [81, 2, 2, 1]);
      assert.deepEqual(await leadsOf(made, 81), ['new']);
      assert.deepEqual(await leadsOf(made, 82), ['other']);
      const receipt = await made.store.erasures.receipt(team.erasureIds[0]);
      assert.deepEqual(receipt?.requestedBy, { via: 'retention', days: 90 });
      const listed = jsonOf(leadline([...cli, 'retention', 'list', '--json'])).policies;
      assert.deepEqual([listed[0].teamId, listed[0].lastErased], [81, 2]);
      assert.notEqual(listed[0].lastRunAt, null);

      assert.match(succeeded(leadline([...cli, 'retention', 'clear', '--team', '81'])).stdout, /removed/);
      assert.deepEqual(jsonOf(leadline([...cli, 'retention', 'list', '--json'])).policies, []);
    });
  });
}
