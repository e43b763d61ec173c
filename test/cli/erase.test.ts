import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { jsonOf, leadline, storeArgs, succeeded } from './cli.js';

/**
 * `leadline erase` and `leadline suppression` (issue 40, docs/cli.md, docs/privacy.md): the
 * operator erases by e-mail over every team or one, or by lead ids; the receipt as JSON; bad
 * input is a clear message and leaves the store untouched; suppressions list as hashes only and
 * are lifted.
 */
let dir: string;
let data: string;
const lead = (userId: number, id: string, email: string) => ({
  type: 'lead',
  userId,
  id,
  epoch: 1_700_000_000_000 + id.charCodeAt(0),
  isLead: true,
  name: 'Erin Erased',
  email,
});
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-erase-cli-'));
  data = join(dir, 'leads.ndjson');
  writeFileSync(
    data,
    [
      { type: 'team', id: 61, name: 'One' },
      { type: 'team', id: 62, name: 'Two' },
      { type: 'member', id: 611, teamId: 61, email: 'a@one.test', role: 'admin', pid: '1' },
      { type: 'member', id: 621, teamId: 62, email: 'b@two.test', role: 'admin', pid: '2' },
      lead(611, 'a', 'erin@x.test'),
      lead(621, 'b', ' ERIN@x.test'),
      lead(611, 'c', 'keep@x.test'),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

const leadsOf = async (made: EngineStore, teamId: number) => {
  const out: string[] = [];
  for await (const b of made.store.leads.scan({ teamId }, 10)) out.push(...b.map((l) => l.id));
  return out;
};

for (const engine of enginesUnderTest()) {
  describe(`leadline erase / suppression (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      succeeded(leadline([...cli, 'import', data]));
    });
    after(() => made.cleanup());

    test('bad input: a clear message, exit 1, the store untouched', async () => {
      const neither = leadline([...cli, 'erase']);
      assert.equal(neither.status, 1);
      assert.match(neither.stderr, /give either --email or --lead-id/);
      const badEmail = leadline([...cli, 'erase', '--email', 'not-an-address']);
      assert.equal(badEmail.status, 1);
      assert.match(badEmail.stderr, /--email: an e-mail address/);
      const unknown = leadline([
        ...cli,
        'erase',
        '--team',
        '61',
        '--lead-id',
        '0190a000-0000-7000-8000-000000000000',
      ]);
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /--lead-id #1: names no lead of this team/);
      const noTeam = leadline([...cli, 'erase', '--lead-id', '0190a000-0000-7000-8000-000000000000']);
      assert.match(noTeam.stderr, /--lead-id needs --team/);
      assert.deepEqual(await leadsOf(made, 61), ['a', 'c']);
      assert.deepEqual(jsonOf(leadline([...cli, 'suppression', 'list', '--json'])).suppressions, []);
    });

    test('--email without --team erases in every team; the receipt; a global suppression', async () => {
      const receipt = jsonOf(leadline([...cli, 'erase', '--email', 'Erin@X.test', '--json']));
      assert.deepEqual(
        [receipt.teamId, receipt.requestedBy, receipt.counts.leads],
        [null, { via: 'operator' }, 2],
      );
      assert.match(receipt.emailHash, /^[0-9a-f]{64}$/);
      assert.deepEqual(await leadsOf(made, 61), ['c']);
      assert.deepEqual(await leadsOf(made, 62), []);
      const listed = leadline([...cli, 'suppression', 'list', '--json']);
      assert.equal(listed.stdout.includes('erin'), false);
      assert.deepEqual(
        jsonOf(listed).suppressions.map((s: { teamId: number | null; emailHash: string }) => [
          s.teamId,
          s.emailHash,
        ]),
        [[null, receipt.emailHash]],
      );
      // Re-importing the file skips both records of the erased address.
      const again = jsonOf(leadline([...cli, 'import', data, '--json']));
      assert.equal(again.suppressed, 2);
      const notThere = leadline([...cli, 'suppression', 'remove', '--email', 'erin@x.test', '--team', '61']);
      assert.equal(notThere.status, 1);
      assert.match(notThere.stderr, /not suppressed for team 61/);
      succeeded(leadline([...cli, 'suppression', 'remove', '--email', 'erin@x.test']));
      assert.deepEqual(jsonOf(leadline([...cli, 'suppression', 'list', '--json'])).suppressions, []);
    });

    test('--lead-id with --team erases exactly those leads', async () => {
      const [c] = (await (async () => {
        const out: string[] = [];
        for await (const b of made.store.leads.scan({ teamId: 61 }, 10)) out.push(...b.map((l) => l.uuid));
        return out;
      })()) as string[];
      const receipt = jsonOf(leadline([...cli, 'erase', '--team', '61', '--lead-id', c!, '--json']));
      assert.deepEqual(
        [receipt.teamId, receipt.leadIds, receipt.counts.leads, receipt.emailHash],
        [61, 1, 1, null],
      );
      assert.deepEqual(await leadsOf(made, 61), []);
    });
  });
}
