import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, testConfig } from '../support/helpers.js';
import { type CliResult, describeRun, jsonOf, leadline, storeArgs } from './cli.js';

/**
 * `leadline v1 brownout add|list|remove`, `leadline v1 report` and the legacy grants of
 * `leadline keys` (v2-and-lifecycle "Retirement machinery" and "Configuration surface"), through
 * the installed command: --json prints one document; a failure exits 1 with one stderr line and
 * changes nothing.
 */
const DAY = 86_400_000;
const OPERATIONS = [
  'getLastLead',
  'getLastLeadTeam',
  'getLastLeadSubTeam',
  'getLeadsTimeRange',
  'getLeadsTimeRangeForTeam',
];
const REPORT_FIELDS = [
  'keyId',
  'memberId',
  'status',
  'v1Calls',
  'v1Served',
  'v1Refused',
  'v1ByOperation',
  'v1LastSeen',
  'userAgent',
  'v2Calls',
];
const zeroOps = (): Record<string, number> => Object.fromEntries(OPERATIONS.map((op) => [op, 0]));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A failed command: exit 1 and exactly one stderr line matching `message`; stdout empty, or with
 * --json exactly the error document carrying that line.
 */
function assertFails(r: CliResult, message: RegExp, json = false): void {
  assert.equal(r.status, 1, describeRun(r));
  const line = r.stderr.trimEnd();
  assert.equal(line.split('\n').length, 1, `one stderr line: ${r.stderr}`);
  assert.match(line, message);
  if (json) assert.deepEqual(jsonOf(r, 1), { error: { message: line } });
  else assert.equal(r.stdout, '');
}

/** A successful command with --json: exit 0, exactly one JSON document on stdout. */
function json(r: CliResult): Record<string, unknown> {
  assert.equal(r.stdout.trimEnd().split('\n').length, 1, `one document on one line\n${describeRun(r)}`);
  return jsonOf(r) as Record<string, unknown>;
}

/** The lines of a successful human answer. */
function lines(r: CliResult): string[] {
  assert.equal(r.status, 0, describeRun(r));
  return r.stdout.trimEnd().split('\n');
}

for (const engine of enginesUnderTest()) {
  describe(`leadline v1 and legacy grants (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    const run = (...args: string[]) => leadline([...cli, ...args]);
    const add = (from: string, to: string, ...rest: string[]) =>
      run('v1', 'brownout', 'add', '--from', from, '--to', to, ...rest);
    /** Creates a key with the command; returns its id and its secret (printed only there). */
    const newKey = (member: number, ...flags: string[]) => {
      const doc = json(run('keys', 'create', '--member', String(member), ...flags, '--json'));
      return { id: doc.id as number, key: doc.key as string };
    };
    /** What is stored, read beside the command: a refused command must leave it as it was. */
    const stored = () => made.store.retirement.brownouts();

    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      await load(made.store, [
        { type: 'team', id: 1, name: 'Acme' },
        { type: 'member', id: 7, teamId: 1, email: 'ana@acme.test', role: 'admin', pid: '70' },
        { type: 'member', id: 8, teamId: 1, email: 'max@acme.test', role: 'member', pid: '80' },
        { type: 'subteam', id: 3, teamId: 1, name: 'Field', members: [7, 8], admins: [7] },
        { type: 'lead', userId: 7, id: '1', epoch: 1000, isLead: true },
      ]);
    });
    after(() => made.cleanup());

    test('brownout add without --key is for every key; the human answer is one line', async () => {
      const doc = json(add('2099-01-01T00:00:00Z', '2099-01-01T04:00:00+02:00', '--json'));
      assert.equal(typeof doc.id, 'number');
      assert.deepEqual(doc, {
        id: doc.id,
        from: '2099-01-01T00:00:00.000Z',
        to: '2099-01-01T02:00:00.000Z',
        keys: null,
        state: 'scheduled',
      });
      const human = lines(add('2099-02-01', '2099-02-02'));
      assert.equal(human.length, 1);
      assert.match(
        human[0]!,
        /^brownout \d+: 2099-02-01T00:00:00\.000Z to 2099-02-02T00:00:00\.000Z, every key$/,
      );
      assert.deepEqual(
        (await stored()).map((b) => b.keyIds),
        [null, null],
      );
    });

    test('brownout add with repeated --key; an unknown key id is exit 1 and stores nothing', async () => {
      const [a, b] = [newKey(7).id, newKey(8).id];
      const doc = json(add('2099-03-01', '2099-03-02', '--key', `${a}`, '--key', `${b}`, '--json'));
      assert.deepEqual(doc.keys, [a, b]);
      assert.deepEqual((await stored()).find((x) => x.id === doc.id)?.keyIds, [a, b]);
      const before = await stored();
      assertFails(add('2099-03-01', '2099-03-02', '--key', `${a}`, '--key', '99999'), /^no key 99999$/);
      assertFails(
        add('2099-03-01', '2099-03-02', '--key', 'ana', '--json'),
        /^--key "ana" is not a key id$/,
        true,
      );
      assert.deepEqual(await stored(), before, 'nothing stored');
    });

    test('--to not after --from, or a time that is not ISO-8601: exit 1, nothing stored', async () => {
      const before = await stored();
      const t = '2099-04-01T00:00:00Z';
      assertFails(add(t, t, '--json'), /^--to must be after --from$/, true);
      assertFails(add(t, '2099-03-31T23:59:59Z'), /^--to must be after --from$/);
      assertFails(
        add('tomorrow', t),
        /^--from "tomorrow" is not an ISO-8601 time: give a date-time with an offset/,
      );
      assertFails(add(t, '2099-04-01 12:00'), /^--to "2099-04-01 12:00" is not an ISO-8601 time: /);
      assert.deepEqual(await stored(), before, 'nothing stored');
    });

    test('brownout list --json: {brownouts:[{id, from, to, keys, state}]}, scheduled, active and past', async () => {
      const key = newKey(7).id;
      const now = Date.now();
      // `add` refuses a window already over (issue 22 §7): a past one comes in through the store.
      const past = (
        await made.store.retirement.addBrownout({
          startsAt: now - 2 * DAY,
          endsAt: now - DAY,
          keyIds: [key],
          createdAt: now,
        })
      ).id;
      const active = json(add(iso(now - 3_600_000), iso(now + 3_600_000), '--key', `${key}`, '--json')).id;
      const doc = json(run('v1', 'brownout', 'list', '--json'));
      assert.deepEqual(Object.keys(doc), ['brownouts']);
      const list = doc.brownouts as Record<string, unknown>[];
      for (const b of list) assert.deepEqual(Object.keys(b).sort(), ['from', 'id', 'keys', 'state', 'to']);
      assert.deepEqual(
        list.find((b) => b.id === active),
        {
          id: active,
          from: iso(now - 3_600_000),
          to: iso(now + 3_600_000),
          keys: [key],
          state: 'active',
        },
      );
      assert.equal(list.find((b) => b.id === past)?.state, 'past');
      assert.deepEqual(
        list.filter((b) => b.keys === null).map((b) => b.state),
        ['scheduled', 'scheduled'],
      );
      // A table with a header, as the other listings (issue 37).
      const human = lines(run('v1', 'brownout', 'list'));
      assert.equal(human.length, list.length + 1, 'a header, then one line per brownout');
      assert.match(human[0]!, /^id +from +to +state +keys$/);
      assert.ok(
        human.some((l) => new RegExp(`^${active} +${iso(now - 3_600_000)} +\\S+ +active +${key}$`).test(l)),
        human.join('\n'),
      );
    });

    test('brownout add warns when the same window for the same keys is already there', async () => {
      const key = newKey(7).id;
      const from = iso(Date.now() + 10 * DAY);
      const to = iso(Date.now() + 11 * DAY);
      const first = json(add(from, to, '--key', `${key}`, '--json')).id;
      const again = run('v1', 'brownout', 'add', '--from', from, '--to', to, '--key', `${key}`);
      assert.equal(again.status, 0);
      assert.match(
        again.stderr,
        new RegExp(`^warning: brownout ${first} already covers this window for the same keys`),
      );
      const other = run('v1', 'brownout', 'add', '--from', from, '--to', to);
      assert.equal(other.stderr, '', 'every key is not the same keys');
    });

    test('brownout remove <id>, then list is empty; an unknown id is exit 1', async () => {
      const [last, first, ...others] = (await stored()).reverse();
      // The earlier tests' windows go through the store (the command is what is under test here).
      for (const b of others) assert.ok(await made.store.retirement.removeBrownout(b.id));
      assert.deepEqual(json(run('v1', 'brownout', 'remove', `${first!.id}`, '--json')), {
        id: first!.id,
        removed: true,
      });
      assert.deepEqual(lines(run('v1', 'brownout', 'remove', `${last!.id}`)), [
        `brownout ${last!.id} removed`,
      ]);
      assert.deepEqual(json(run('v1', 'brownout', 'list', '--json')), { brownouts: [] });
      assert.deepEqual(lines(run('v1', 'brownout', 'list')), ['no brownouts']);
      assertFails(run('v1', 'brownout', 'remove', `${last!.id}`), new RegExp(`^no brownout ${last!.id}$`));
      assertFails(
        run('v1', 'brownout', 'remove', 'last', '--json'),
        /^brownout id "last" is not a number$/,
        true,
      );
    });

    test('keys create --legacy-v1; grant-legacy-v1 and revoke-legacy-v1 flip legacyV1', () => {
      const listed = () =>
        new Map(
          (json(run('keys', 'list', '--json')).keys as { id: number; legacyV1: boolean }[]).map((k) => [
            k.id,
            k.legacyV1,
          ]),
        );
      const granted = newKey(7, '--legacy-v1').id;
      const plain = newKey(7).id;
      let legacy = listed();
      assert.equal(legacy.get(granted), true);
      assert.equal(legacy.get(plain), false);
      assert.deepEqual(json(run('keys', 'grant-legacy-v1', `${plain}`, '--json')), {
        id: plain,
        legacyV1: true,
      });
      assert.deepEqual(lines(run('keys', 'revoke-legacy-v1', `${granted}`)), [
        `key ${granted}: legacy v1 access revoked`,
      ]);
      legacy = listed();
      assert.equal(legacy.get(granted), false);
      assert.equal(legacy.get(plain), true);
      assertFails(run('keys', 'grant-legacy-v1', '99999'), /^no key 99999$/);
      assertFails(run('keys', 'revoke-legacy-v1', '99999', '--json'), /^no key 99999$/, true);
      assertFails(run('keys', 'grant-legacy-v1', 'x1'), /^key id "x1" is not a number$/);
    });

    test('v1 report --json: the spec shape, over real usage, with all four statuses', async () => {
      // Keys made now are after the default freeze: those that call v1 need the legacy grant.
      const onV1 = newKey(7, '--legacy-v1');
      const migrated = newKey(7, '--legacy-v1');
      const v2only = newKey(8);
      const unused = newKey(8);
      const T = Date.now();
      /** An in-process app on the same store, its clock at `at`; closing it flushes the ledger. */
      const withApp = async (at: number, calls: [string, { key: string }, string][]) => {
        const app = await buildApp({ config: testConfig(), store: made.store, now: () => at });
        try {
          for (const [url, k, agent] of calls) {
            const res = await app.inject({ url, headers: { ...auth(k.key), 'user-agent': agent } });
            assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
          }
        } finally {
          await app.close();
        }
      };
      // 40 days ago: the migrated key's last v1 calls, before the default 30-day window.
      await withApp(T - 40 * DAY, [
        ['/api/pub/leads/getLastLead', migrated, 'old-crm/1.0'],
        ['/api/pub/leads/getLeadsTimeRange?start=0', migrated, 'old-crm/1.0'],
      ]);
      const v1 = '/api/pub/leads/';
      const v2 = '/api/pub/v2/leads/changes?limit=1';
      await withApp(T, [
        ...[
          'getLastLead',
          'getLastLead',
          'getLastLeadTeam',
          'getLastLeadSubTeam?subTeamId=3',
          'getLeadsTimeRange?start=0',
          'getLeadsTimeRangeForTeam?start=0',
        ].map((op): [string, { key: string }, string] => [`${v1}${op}`, onV1, 'crm-sync/2.0']),
        [v2, migrated, 'new-crm/1.0'],
        [v2, v2only, 'new-crm/1.0'],
        [v2, v2only, 'new-crm/1.0'],
      ]);

      const doc = json(run('v1', 'report', '--json'));
      assert.deepEqual(Object.keys(doc), ['windowDays', 'keys']);
      assert.equal(doc.windowDays, 30);
      const keys = doc.keys as Record<string, unknown>[];
      for (const k of keys) {
        assert.deepEqual(Object.keys(k), REPORT_FIELDS);
        assert.deepEqual(Object.keys(k.v1ByOperation as object), OPERATIONS);
      }
      const ids = keys.map((k) => k.keyId as number);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'one entry per key, by key id',
      );
      const entry = (k: { id: number }) => keys.find((e) => e.keyId === k.id);
      const none = {
        v1Calls: 0,
        v1Served: 0,
        v1Refused: 0,
        v1ByOperation: zeroOps(),
        v1LastSeen: null,
        userAgent: null,
      };
      assert.deepEqual(entry(onV1), {
        keyId: onV1.id,
        memberId: 7,
        status: 'on-v1',
        v1Calls: 6,
        v1Served: 6,
        v1Refused: 0,
        v1ByOperation: {
          getLastLead: 2,
          getLastLeadTeam: 1,
          getLastLeadSubTeam: 1,
          getLeadsTimeRange: 1,
          getLeadsTimeRangeForTeam: 1,
        },
        v1LastSeen: iso(T),
        userAgent: 'crm-sync/2.0',
        v2Calls: 0,
      });
      assert.deepEqual(entry(migrated), {
        keyId: migrated.id,
        memberId: 7,
        status: 'migrated',
        ...none,
        v1LastSeen: iso(T - 40 * DAY),
        userAgent: 'old-crm/1.0',
        v2Calls: 1,
      });
      assert.deepEqual(entry(v2only), {
        keyId: v2only.id,
        memberId: 8,
        status: 'v2-only',
        ...none,
        v2Calls: 2,
      });
      assert.deepEqual(entry(unused), {
        keyId: unused.id,
        memberId: 8,
        status: 'unused',
        ...none,
        v2Calls: 0,
      });

      // A 60-day window reaches back to the migrated key's calls.
      const wide = json(run('v1', 'report', '--days', '60', '--json'));
      assert.equal(wide.windowDays, 60);
      const back = (wide.keys as Record<string, unknown>[]).find((k) => k.keyId === migrated.id);
      assert.equal(back?.status, 'on-v1');
      assert.deepEqual(back?.v1ByOperation, { ...zeroOps(), getLastLead: 1, getLeadsTimeRange: 1 });

      // For people: a summary line, then a table with a header (issue 37), one row per key.
      const human = lines(run('v1', 'report'));
      assert.equal(human.length, keys.length + 3);
      assert.equal(human[0], `last 30 days: 1 of ${keys.length} keys still call v1`);
      assert.equal(human[1], '');
      assert.match(
        human[2]!,
        /^key +member +status +v1 +served +refused +last v1 +v2 +user agent +v1 by operation$/,
      );
      assert.match(
        human.find((l) => l.startsWith(`${onV1.id} `)) ?? '',
        new RegExp(
          `^${onV1.id} +7 +on-v1 +6 +6 +0 +${iso(T).replaceAll('.', '\\.')} +0 +crm-sync/2\\.0 +` +
            'getLastLead 2, getLastLeadTeam 1, getLastLeadSubTeam 1, getLeadsTimeRange 1, getLeadsTimeRangeForTeam 1$',
        ),
      );
      assert.ok(
        human.every((l) => !l.includes('\t')),
        'no tab-separated rows',
      );
    });

    test('v1 report --days must be a whole number of days, 1 to 3660 (as the admin API)', () => {
      assertFails(run('v1', 'report', '--days', '0'), /^--days "0": a whole number of days, 1 to 3660$/);
      assertFails(
        run('v1', 'report', '--days', '3661'),
        /^--days "3661": a whole number of days, 1 to 3660$/,
      );
      assertFails(run('v1', 'report', '--days', 'x', '--json'), /^--days "x": a whole number of days/, true);
    });
  });
}
