// tier: quick — in `npm run test:quick` (README "Test it"): fast, SQLite only
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enginesUnderTest } from '../support/engines.js';
import { assertInvalidParams } from '../v1/http-assert.js';
import { assertV2Problem, legacyIds, post, search, V2 } from './client.js';
import {
  buildSearchFixture,
  iso,
  M,
  OTHER_SUBTEAM,
  OTHER_TEAM,
  type SearchFixture,
  SUBTEAM,
  T,
  TEAM,
} from './search-fixture.js';

const team = { filters: { teamId: TEAM } };

for (const engine of enginesUnderTest()) {
  describe(`v2 search leads [${engine}]`, () => {
    let fx: SearchFixture;
    before(async () => {
      fx = await buildSearchFixture(engine);
    });
    after(async () => fx.cleanup());

    const ids = async (key: string, body: object) => legacyIds((await search(fx.app, key, body)).leads);
    const refused = async (key: string, body: unknown, status: number, code: string) =>
      assertV2Problem(await post(fx.app, `${V2}/search`, key, body), status, code);

    describe('scope and roles (as v1 C2)', () => {
      it('a team admin reads the whole team, newest first by default; ties: stored last first', async () => {
        assert.deepEqual(await ids(fx.key.admin, team), ['a5', 'a4', 'a3', 'a2', 'a1']);
      });

      it('ASC is oldest first; ties in storage order', async () => {
        const body = { ...team, sort: { field: 'timestamp', direction: 'ASC' } };
        assert.deepEqual(await ids(fx.key.admin, body), ['a1', 'a2', 'a3', 'a4', 'a5']);
      });

      it('a member reads their own leads, not a teammate’s nor the team', async () => {
        assert.deepEqual(await ids(fx.key.mia, { filters: { assignedMemberIds: [M.mia] } }), ['a2', 'a1']);
        await refused(fx.key.mia, team, 403, 'forbidden');
        await refused(fx.key.mia, { filters: { assignedMemberIds: [M.max] } }, 403, 'forbidden');
        await refused(fx.key.mia, { filters: { subteamIds: [SUBTEAM] } }, 403, 'forbidden');
      });

      it('a subteam admin reads the subteam and its members, nobody else', async () => {
        assert.deepEqual(await ids(fx.key.subAdmin, { filters: { subteamIds: [SUBTEAM] } }), [
          'a3',
          'a2',
          'a1',
        ]);
        assert.deepEqual(
          await ids(fx.key.subAdmin, { filters: { assignedMemberIds: [M.max, M.subAdmin] } }),
          ['a4', 'a3'],
        );
        await refused(fx.key.subAdmin, { filters: { assignedMemberIds: [M.admin] } }, 403, 'forbidden');
        await refused(fx.key.subAdmin, team, 403, 'forbidden');
      });

      it('another team is never readable: its id 403, its members and subteams the same 404 as none', async () => {
        await refused(fx.key.admin, { filters: { teamId: OTHER_TEAM } }, 403, 'forbidden');
        const foreign = await refused(
          fx.key.admin,
          { filters: { assignedMemberIds: [M.outsider] } },
          404,
          'not-found',
        );
        const missing = await refused(
          fx.key.admin,
          { filters: { assignedMemberIds: [987_654] } },
          404,
          'not-found',
        );
        assert.equal(foreign.title, missing.title);
        await refused(fx.key.admin, { filters: { subteamIds: [OTHER_SUBTEAM] } }, 404, 'not-found');
        await refused(fx.key.admin, { filters: { subteamIds: [987_654] } }, 404, 'not-found');
      });

      it('exactly one scope', async () => {
        const none = await refused(fx.key.admin, { filters: {} }, 400, 'invalid-parameters');
        assertInvalidParams(none, ['/filters']);
        const two = { filters: { teamId: TEAM, assignedMemberIds: [M.mia] } };
        assertInvalidParams(await refused(fx.key.admin, two, 400, 'invalid-parameters'), ['/filters']);
      });
    });

    describe('conditions', () => {
      it('startTime/endTime are half-open and read any offset', async () => {
        const body = { filters: { teamId: TEAM, startTime: iso(2), endTime: iso(4) } };
        assert.deepEqual(await ids(fx.key.admin, body), ['a4', 'a3', 'a2']);
        // T + 2 s is 09:00:02Z, which is 10:00:02 at +01:00.
        assert.equal(Date.parse('2025-03-10T10:00:02+01:00'), T + 2000);
        const offset = { filters: { teamId: TEAM, startTime: '2025-03-10T10:00:02+01:00' } };
        assert.deepEqual(await ids(fx.key.admin, offset), ['a5', 'a4', 'a3', 'a2']);
        assert.deepEqual(
          await ids(fx.key.admin, { filters: { teamId: TEAM, startTime: iso(3), endTime: iso(3) } }),
          [],
        );
      });

      it('leadSource: the sources v1 flags map to', async () => {
        const by = (s: string[]) => ids(fx.key.admin, { filters: { teamId: TEAM, leadSource: s } });
        assert.deepEqual(await by(['BUSINESS_CARD_SCAN']), ['a5', 'a2']);
        assert.deepEqual(await by(['MANUAL']), ['a4']);
        assert.deepEqual(await by(['APP_TO_APP']), ['a3']);
        assert.deepEqual(await by(['PROFILE_CONNECTION', 'QR_CODE_SCAN']), ['a1']);
      });

      it('hasEmail', async () => {
        assert.deepEqual(await ids(fx.key.admin, { filters: { teamId: TEAM, hasEmail: true } }), [
          'a5',
          'a3',
          'a1',
        ]);
        assert.deepEqual(await ids(fx.key.admin, { filters: { teamId: TEAM, hasEmail: false } }), [
          'a4',
          'a2',
        ]);
      });
    });

    describe('query clauses', () => {
      const q = (fields: string[], value: string, match: 'EXACT' | 'FUZZY') => ({
        ...team,
        query: [{ fields, value, match }],
      });

      it('FUZZY tolerates typos, case and accents on names, and stays in the team', async () => {
        assert.deepEqual(await ids(fx.key.admin, q(['fullName'], 'Jonh Smiht', 'FUZZY')), ['a1']);
        assert.deepEqual(await ids(fx.key.admin, q(['lastName'], 'GARCIA', 'FUZZY')), ['a2']);
        assert.deepEqual(await ids(fx.key.admin, q(['firstName'], 'michael', 'FUZZY')), ['a3']);
        assert.deepEqual(await ids(fx.key.admin, q(['lastName'], 'Smyth', 'FUZZY')), ['a1']);
      });

      it('FUZZY is trigram similarity: a short typo also finds names sharing its first letters', async () => {
        // "jonh" shares "  j" and " jo" with john, jose and jordan alike (pg_trgm word similarity 0.4).
        assert.deepEqual(await ids(fx.key.admin, q(['firstName'], 'jonh', 'FUZZY')), ['a2', 'a1']);
        assert.deepEqual(await ids(fx.key.admin, q(['firstName'], 'zzzz', 'FUZZY')), []);
      });

      it('FUZZY matches a part of a longer field, only in the fields named', async () => {
        assert.deepEqual(await ids(fx.key.admin, q(['companyName'], 'acme', 'FUZZY')), ['a4', 'a1']);
        assert.deepEqual(await ids(fx.key.admin, q(['companyName'], 'mike', 'FUZZY')), []);
        assert.deepEqual(await ids(fx.key.admin, q(['note'], 'booth', 'FUZZY')), ['a5']);
        assert.deepEqual(await ids(fx.key.admin, q(['fullName', 'note'], 'smith booth', 'FUZZY')), [
          'a5',
          'a1',
        ]);
      });

      it('EXACT is the whole field, ignoring case and accents', async () => {
        assert.deepEqual(await ids(fx.key.admin, q(['email'], 'JOHN@ACME.TEST', 'EXACT')), ['a1']);
        assert.deepEqual(await ids(fx.key.admin, q(['companyName'], 'acme', 'EXACT')), []);
        assert.deepEqual(await ids(fx.key.admin, q(['companyName'], 'Acme corp', 'EXACT')), ['a1']);
        assert.deepEqual(await ids(fx.key.admin, q(['fullName'], 'jose garcia', 'EXACT')), ['a2']);
      });

      it('clauses AND together', async () => {
        const body = {
          ...team,
          query: [
            { fields: ['companyName'], value: 'acme', match: 'FUZZY' },
            { fields: ['fullName'], value: 'mark', match: 'FUZZY' },
          ],
        };
        assert.deepEqual(await ids(fx.key.admin, body), ['a4']);
      });

      it('FUZZY needs three letters', async () => {
        const p = await refused(fx.key.admin, q(['fullName'], 'jo', 'FUZZY'), 400, 'invalid-parameters');
        assertInvalidParams(p, ['/query/0/value']);
      });
    });

    describe('bad requests', () => {
      it('names every unknown field, however deep, in words, with the field it most likely meant', async () => {
        const body = {
          filters: { teamId: TEAM, team: 1 },
          limt: 5,
          query: [{ fields: ['email'], value: 'x', match: 'EXACT', op: 1 }],
        };
        const p = await refused(fx.key.admin, body, 400, 'invalid-parameters');
        assertInvalidParams(p, ['/filters/team', '/limt', '/query/0/op']);
        assert.deepEqual(
          p.invalid_params?.map((x) => x.reason),
          [
            'unknown field — did you mean "limit"?',
            'unknown field — did you mean "teamId"?',
            'unknown field',
          ],
        );
        assert.equal(
          p.detail,
          'unknown field "limt" — did you mean "limit"?; unknown field "team" in filters — did you mean "teamId"?; unknown field "op" in query.0',
        );
      });

      it('says what is wrong in words: required, one of, types, time formats', async () => {
        const missing = await refused(fx.key.admin, {}, 400, 'invalid-parameters');
        assert.equal(missing.detail, 'filters is required');
        const sort = await refused(
          fx.key.admin,
          { filters: { teamId: TEAM }, sort: { field: 'name', direction: 'DESC' } },
          400,
          'invalid-parameters',
        );
        assert.equal(sort.detail, 'sort.field must be one of: timestamp');
        const time = await refused(
          fx.key.admin,
          { filters: { teamId: TEAM, startTime: '2024-07-01' }, limit: 0 },
          400,
          'invalid-parameters',
        );
        assert.equal(
          time.detail,
          'filters.startTime must be an ISO-8601 time with an offset, e.g. 2024-07-01T12:00:00Z; limit must be at least 1',
        );
        assert.deepEqual(time.invalid_params, [
          {
            name: '/filters/startTime',
            reason: 'must be an ISO-8601 time with an offset, e.g. 2024-07-01T12:00:00Z',
          },
          { name: '/limit', reason: 'must be at least 1' },
        ]);
      });

      const cases: [string, unknown, string[]][] = [
        ['limit over 1000', { ...team, limit: 1001 }, ['/limit']],
        ['limit 0', { ...team, limit: 0 }, ['/limit']],
        [
          'a time without offset',
          { filters: { teamId: TEAM, startTime: '2025-03-10T09:00:00' } },
          ['/filters/startTime'],
        ],
        [
          'endTime before startTime',
          { filters: { teamId: TEAM, startTime: iso(3), endTime: iso(2) } },
          ['/filters/endTime'],
        ],
        [
          'a date that does not exist',
          { filters: { teamId: TEAM, startTime: '2025-02-30T00:00:00Z' } },
          ['/filters/startTime'],
        ],
        ['an unknown source', { filters: { teamId: TEAM, leadSource: ['FAX'] } }, ['/filters/leadSource/0']],
        [
          'an unknown query field',
          { ...team, query: [{ fields: ['phone'], value: 'x', match: 'EXACT' }] },
          ['/query/0/fields/0'],
        ],
        ['another sort field', { ...team, sort: { field: 'createdAt', direction: 'ASC' } }, ['/sort/field']],
        ['an empty id list', { filters: { assignedMemberIds: [] } }, ['/filters/assignedMemberIds']],
        ['no filters', {}, ['/filters']],
        // R12: text PostgreSQL cannot hold is refused alike on both engines, never a 500.
        [
          'a NUL in a query value',
          { ...team, query: [{ fields: ['email'], value: 'a\u0000b', match: 'EXACT' }] },
          ['/query/0/value'],
        ],
        [
          'a NUL in a FUZZY value',
          { ...team, query: [{ fields: ['note'], value: 'abc\u0000', match: 'FUZZY' }] },
          ['/query/0/value'],
        ],
        [
          'a lone surrogate in a query value',
          { ...team, query: [{ fields: ['fullName'], value: 'x\ud800y', match: 'EXACT' }] },
          ['/query/0/value'],
        ],
        ['a NUL in the cursor', { ...team, cursor: 'abc\u0000' }, ['/cursor']],
      ];
      for (const [what, body, names] of cases) {
        it(`400 for ${what}`, async () => {
          assertInvalidParams(await refused(fx.key.admin, body, 400, 'invalid-parameters'), names);
        });
      }

      it('R12: the reason says which character; other controls and paired surrogates are searched for', async () => {
        const q = (fields: string[], value: string, match: string) => ({
          ...team,
          query: [{ fields, value, match }],
        });
        const p = await refused(fx.key.admin, q(['email'], '\u0000', 'EXACT'), 400, 'invalid-parameters');
        assert.match(p.invalid_params?.[0]?.reason ?? '', /U\+0000 \(NUL\)/);
        const s = await refused(fx.key.admin, q(['email'], '\udc00', 'EXACT'), 400, 'invalid-parameters');
        assert.match(s.invalid_params?.[0]?.reason ?? '', /unpaired surrogate \(U\+DC00\)/);
        for (const value of ['\u0001\u001f\u007f', 'tab\there', '\ud83d\ude00'])
          assert.deepEqual(await ids(fx.key.admin, q(['note'], value, 'EXACT')), [], JSON.stringify(value));
      });

      it('a body that is not JSON is 400; another media type 415', async () => {
        assertV2Problem(
          await post(fx.app, `${V2}/search`, fx.key.admin, '{"filters":'),
          400,
          'invalid-request',
        );
        const res = await fx.app.inject({
          method: 'POST',
          url: `${V2}/search`,
          headers: { authorization: `Bearer ${fx.key.admin}`, 'content-type': 'text/plain' },
          payload: JSON.stringify(team),
        });
        assertV2Problem(res, 415, 'unsupported-media-type');
      });
    });
  });
}
