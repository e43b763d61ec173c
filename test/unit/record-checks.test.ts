import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { TObject } from 'typebox';
import { Compile } from 'typebox/compile';
import { recordChecksSource } from '../../scripts/record-checks.js';
import { LeadRecord, MemberRecord, SubteamRecord, TeamRecord } from '../../src/schemas/import-records.js';
import { checkLead, checkMember, checkSubteam, checkTeam } from '../../src/schemas/record-checks.js';

/** Values every member of a record is tried with, valid for some members and not for others. */
const VALUES: unknown[] = [
  null,
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  8_640_000_000_000_001,
  '',
  'x',
  '12',
  '-3.5',
  '52.52',
  '1234.5',
  'a@b',
  'not an address',
  '😀',
  true,
  false,
  [],
  [1, 2],
  [0],
  {},
  { twitter: 'x' },
  { twitter: 'x', facebook: 'y' },
  'admin',
  'member',
  'team',
  'lead',
];

const RECORDS: [string, TObject, (value: unknown) => boolean, Record<string, unknown>][] = [
  ['team', TeamRecord, checkTeam, { type: 'team', id: 1, name: 'T', timeZone: 'UTC' }],
  [
    'member',
    MemberRecord,
    checkMember,
    { type: 'member', id: 2, teamId: 1, email: 'm@x.test', role: 'admin' },
  ],
  ['subteam', SubteamRecord, checkSubteam, { type: 'subteam', id: 3, teamId: 1, name: 'S', members: [2] }],
  [
    'lead',
    LeadRecord,
    checkLead,
    { type: 'lead', id: 'a', epoch: 1, userId: 2, isLead: true, views: '3', lat: '52.5', fullContact: {} },
  ],
];

describe('the import records’ generated checks (src/schemas/record-checks.ts)', () => {
  it('are what scripts/record-checks.ts makes of the schemas (run `npm run record-checks` after a change)', () => {
    const committed = readFileSync(new URL('../../src/schemas/record-checks.ts', import.meta.url), 'utf8');
    assert.equal(committed, recordChecksSource());
  });

  for (const [name, schema, generated, base] of RECORDS) {
    it(`${name}: agree with TypeBox's compiled check on each member changed, left out or unknown`, () => {
      const compiled = Compile(schema);
      const cases: unknown[] = [base, null, [], 'x', 1, {}];
      for (const key of [...Object.keys(schema.properties), 'unknown', 'userid']) {
        const { [key]: _left, ...without } = base;
        cases.push(without);
        for (const value of VALUES) cases.push({ ...base, [key]: value });
      }
      let valid = 0;
      for (const value of cases) {
        const expected = compiled.Check(value);
        assert.equal(generated(value), expected, JSON.stringify(value));
        if (expected) valid++;
      }
      // Both answers occur, so agreeing means something.
      assert.ok(valid > 0 && valid < cases.length, `${valid} of ${cases.length} valid`);
    });
  }
});
