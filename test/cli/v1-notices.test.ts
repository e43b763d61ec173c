import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey } from '../../src/keys/create-key.js';
import { utcDay } from '../../src/retirement/usage.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { describeRun, jsonOf, leadline, storeArgs } from './cli.js';

/**
 * `leadline v1 notices` (issue 42 §3): per team whose keys called v1 in the last whole UTC days,
 * a letter to e-mail (its admins, the keys, the calls with their v2 requests, the next brownout,
 * the sunset, the guide) or CSV (one row per key and operation), or --json; bad flags fail with
 * one line and print nothing.
 */
const DAY = 86_400_000;
const [A, B] = [4301, 4302];
const ENV = { LEADLINE_V1_SUNSET_AT: '2031-03-01T00:00:00Z', LEADLINE_PUBLIC_URL: 'https://leadline.test' };
const GUIDE = 'https://leadline.test/docs/v1-migration';

for (const engine of enginesUnderTest()) {
  describe(`leadline v1 notices (${engine})`, () => {
    let made: EngineStore;
    let run: (...args: string[]) => ReturnType<typeof leadline>;
    const ids: Record<string, number> = {};
    const prefix: Record<string, string> = {};
    const yesterday = utcDay(Date.now() - DAY);
    const before2 = utcDay(Date.now() - 2 * DAY);
    const brownoutStart = Date.parse(`${utcDay(Date.now() + 10 * DAY)}T09:00:00.000Z`);

    before(async () => {
      made = await makeEngineStore(engine);
      run = (...args) => leadline([...args, ...storeArgs(made.location)], { env: ENV });
      await load(made.store, [
        { type: 'team', id: A, name: 'Alpha, Inc.' },
        { type: 'team', id: B, name: 'Beta' },
        { type: 'member', id: 43011, teamId: A, email: 'ann@alpha.test', role: 'admin', pid: 'a' },
        { type: 'member', id: 43012, teamId: A, email: 'al@alpha.test', role: 'member', pid: 'a2' },
        { type: 'member', id: 43021, teamId: B, email: 'bob@beta.test', role: 'admin', pid: 'b' },
      ]);
      for (const [name, member, label] of [
        ['a1', 43012, 'CRM "sync", nightly'],
        ['a2', 43011, null],
        ['b1', 43021, 'b'],
      ] as const) {
        const k = await createKey(made.store, { member, label, legacyV1: true });
        ids[name] = k.id;
        prefix[name] = k.display;
      }
      const row = (key: string, operation: string, day: string, status: number, count: number) => ({
        keyId: ids[key]!,
        api: 'v1' as const,
        operation,
        day,
        status,
        count,
        firstSeen: Date.parse(`${day}T08:00:00Z`),
        lastSeen: Date.parse(`${day}T09:00:00Z`),
        userAgent: 'crm/1',
      });
      await made.store.retirement.addUsage([
        row('a1', 'getLastLead', yesterday, 200, 5),
        row('a1', 'getLastLead', yesterday, 410, 2),
        row('a1', 'getLeadsTimeRange', yesterday, 200, 1),
        row('b1', 'getLastLeadTeam', before2, 200, 9),
        { ...row('a2', 'getLastLead', yesterday, 200, 4), api: 'v2' as const },
      ]);
      await made.store.retirement.addBrownout({
        startsAt: brownoutStart,
        endsAt: brownoutStart + 3_600_000,
        keyIds: [ids.a1!],
        createdAt: Date.now(),
      });
    });
    after(() => made.cleanup());

    test('a letter per team: its admins, the keys, the calls and their v2 requests, brownout, sunset, guide', () => {
      const r = run('v1', 'notices');
      assert.equal(r.status, 0, describeRun(r));
      const text = r.stdout;
      assert.match(text, /^To: ann@alpha\.test\n/, 'the team’s admins only');
      assert.match(text, /Subject: leadline: 1 API key of your team still calls v1/);
      assert.match(text, /Hello Alpha, Inc\. \(team 4301\),/);
      assert.match(text, new RegExp(`On ${yesterday} \\(UTC\\), this key of your team called`));
      assert.ok(text.includes(`key ${ids.a1}  ${prefix.a1}…  "CRM \\"sync\\", nightly"  member 43012`), text);
      assert.match(
        text,
        /getLastLead: 7 calls\n {6}instead: POST \/api\/pub\/v2\/leads\/search \{"filters":\{"assignedMemberIds":\[43012\]\}/,
      );
      assert.match(text, /getLeadsTimeRange: 1 call\n/);
      assert.match(
        text,
        new RegExp(`Next brownout: ${new Date(brownoutStart).toISOString()} to .* \\(key ${ids.a1}\\)`),
      );
      assert.match(text, /Sunset: 2031-03-01T00:00:00\.000Z\./);
      assert.ok(text.includes(`Migration guide: ${GUIDE}`));
      assert.doesNotMatch(
        text,
        /Beta|getLastLeadTeam/,
        'B called the day before yesterday: not in a one-day window',
      );
      assert.doesNotMatch(text, new RegExp(`key ${ids.a2}\\b`), 'v2 calls are not v1 calls');
    });

    test('--days 2 --json: both teams, the window, the same facts as the event', () => {
      const doc = jsonOf(run('v1', 'notices', '--days', '2', '--json'));
      assert.deepEqual([doc.from, doc.to], [before2, yesterday]);
      assert.deepEqual(
        doc.teams.map((t: { teamId: number; recipients: string[] }) => [t.teamId, t.recipients]),
        [
          [A, ['ann@alpha.test']],
          [B, ['bob@beta.test']],
        ],
      );
      const beta = doc.teams[1];
      assert.deepEqual(beta.keys, [
        {
          keyId: ids.b1,
          prefix: prefix.b1,
          label: 'b',
          memberId: 43021,
          calls: [
            {
              operation: 'getLastLeadTeam',
              count: 9,
              successor: {
                method: 'POST',
                path: '/api/pub/v2/leads/search',
                body: { filters: { teamId: B }, sort: { field: 'timestamp', direction: 'DESC' }, limit: 1 },
              },
            },
          ],
        },
      ]);
      assert.deepEqual(
        [beta.nextBrownout, beta.sunsetAt, beta.migrationGuide],
        [null, '2031-03-01T00:00:00.000Z', GUIDE],
      );
    });

    test('--csv: a header, one row per key and operation, quoted where needed', () => {
      const r = run('v1', 'notices', '--days', '2', '--csv');
      assert.equal(r.status, 0, describeRun(r));
      const rows = r.stdout.split('\r\n');
      assert.equal(rows.pop(), '', 'ends with a line break');
      assert.equal(
        rows[0],
        'team_id,team,from,to,key_id,key_prefix,key_label,member_id,operation,count,successor,next_brownout_start,next_brownout_end,sunset,migration_guide',
      );
      assert.equal(rows.length, 4, r.stdout);
      const brownout = new Date(brownoutStart).toISOString();
      const end = new Date(brownoutStart + 3_600_000).toISOString();
      assert.equal(
        rows[1],
        `${A},"Alpha, Inc.",${before2},${yesterday},${ids.a1},${prefix.a1},"CRM ""sync"", nightly",43012,getLastLead,7,"POST /api/pub/v2/leads/search {""filters"":{""assignedMemberIds"":[43012]},""sort"":{""field"":""timestamp"",""direction"":""DESC""},""limit"":1}",${brownout},${end},2031-03-01T00:00:00.000Z,${GUIDE}`,
      );
      assert.match(rows[2]!, new RegExp(`^${A},.*,getLeadsTimeRange,1,`));
      assert.match(rows[3]!, new RegExp(`^${B},Beta,.*,getLastLeadTeam,9,.*,,,2031-03-01T00:00:00.000Z,`));
    });

    test('--team narrows; a day without v1 calls says so', () => {
      const r = run('v1', 'notices', '--team', String(B));
      assert.equal(r.status, 0, describeRun(r));
      assert.equal(r.stdout, `no key called v1 on ${yesterday} (UTC)\n`);
      assert.deepEqual(
        jsonOf(run('v1', 'notices', '--team', String(B), '--days', '2', '--json')).teams.length,
        1,
      );
    });

    test('bad flags: one line, nothing printed', () => {
      const cases: [string[], RegExp][] = [
        [['--days', '0'], /^--days "0": a whole number, 1 to 366$/],
        [['--days', '2x'], /^--days "2x": a whole number/],
        [['--team', '999999'], /^no team 999999$/],
        [['--csv', '--json'], /^--csv and --json: choose one$/],
      ];
      for (const [args, message] of cases) {
        const r = run('v1', 'notices', ...args);
        assert.equal(r.status, 1, describeRun(r));
        assert.match(r.stderr.trimEnd(), message);
        if (!args.includes('--json')) assert.equal(r.stdout, '');
      }
    });
  });
}
