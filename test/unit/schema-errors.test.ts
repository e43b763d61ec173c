import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { LeadRecord, MemberRecord } from '../../src/schemas/import-records.js';
import { describeErrors, type SchemaError } from '../../src/schemas/schema-errors.js';
import { SearchBody } from '../../src/schemas/v2.js';

/** The sentences the one formatter makes for `value` (API detail, import reason, CLI). */
const sentences = (schema: TSchema, value: unknown) =>
  describeErrors(schema, Compile(schema).Errors(value) as SchemaError[]).map((p) => p.sentence);

describe('schema errors in words (src/schemas/schema-errors.ts)', () => {
  test('the issue 22 examples', () => {
    assert.deepEqual(sentences(SearchBody, {}), ['filters is required']);
    assert.deepEqual(
      sentences(SearchBody, { filters: { teamId: 1 }, sort: { field: 'x', direction: 'DESC' } }),
      ['sort.field must be one of: timestamp'],
    );
    assert.deepEqual(sentences(SearchBody, { teamid: 1, filters: { teamId: 1 } }), [
      'unknown field "teamid"',
    ]);
    assert.deepEqual(sentences(SearchBody, { filters: { teamid: 1 } }), [
      'unknown field "teamid" in filters — did you mean "teamId"?',
    ]);
    assert.deepEqual(sentences(SearchBody, { filters: { teamId: 1, endTime: '1719835200' } }), [
      'filters.endTime must be an ISO-8601 time with an offset, e.g. 2024-07-01T12:00:00Z',
    ]);
  });

  test('no guess for a name far from every known one; every unknown field named', () => {
    assert.deepEqual(sentences(SearchBody, { filters: { teamId: 1 }, colour: 1, shape: 2 }), [
      'unknown field "colour"',
      'unknown field "shape"',
    ]);
  });

  test('types, unions of literals, bounds and patterns', () => {
    const schema = Type.Object(
      {
        n: Type.Integer({ minimum: 1 }),
        s: Type.String({ minLength: 1 }),
        role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
        list: Type.Array(Type.Integer(), { maxItems: 2, uniqueItems: true }),
      },
      { additionalProperties: false },
    );
    assert.deepEqual(sentences(schema, { n: 'one', s: '', role: 'owner', list: [1, 1, 1] }), [
      'n must be an integer',
      's must not be empty',
      'role must be one of: admin, member',
      'list must have at most 2 items',
    ]);
    assert.deepEqual(sentences(schema, { n: 0, s: 'x', role: 'admin', list: [] }), ['n must be at least 1']);
  });

  test('import records: the same words, patterns named', () => {
    const member = { type: 'member', id: 1, teamId: 1, email: 'nobody', role: 'boss' };
    assert.deepEqual(sentences(MemberRecord, member), [
      'email must be an e-mail address',
      'role must be one of: admin, member',
    ]);
    const lead = { type: 'lead', id: '1', epoch: 1, userId: 1, views: 'many', isLead: true };
    assert.deepEqual(sentences(LeadRecord, lead), [
      'views must be numeric text such as "12" or "3.5" (or "")',
    ]);
    assert.deepEqual(sentences(LeadRecord, { ...lead, views: '1', userid: 1 }), [
      'unknown field "userid" — did you mean "userId"?',
    ]);
  });
});
