import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { commonV1Suite } from './common-suite.js';
import { BERLIN, BERLIN_TIE, type Fixture, importMore, LA, Model, PLAIN, SUB } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import {
  assertInvalidParams,
  assertLeads,
  assertProblem,
  BAD_SUBTEAM_QUERIES,
  call,
  V1,
} from './http-assert.js';

const PATH = `${V1}getLastLeadSubTeam`;
const at = (subteamId: number | string) => `${PATH}?subTeamId=${subteamId}`;

for (const engine of enginesUnderTest()) {
  describe(`getLastLeadSubTeam (operation 3): the most recent lead of a subteam (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));
    const subLast = async (memberId: number, subteamId: number) =>
      assertLeads(await call(app, at(subteamId), fx.key(memberId)));

    describe('happy', () => {
      describe('C4: [lead] with the greatest epoch of the subteam’s members, [] when none', () => {
        test('the team admin reads every subteam of the team, as imported (C1 round trip)', async () => {
          for (const [adminId, subteams] of [
            [BERLIN.teamAdmin, [SUB.berlinField, SUB.berlinInside]],
            [LA.teamAdmin, [SUB.laWest]],
            [PLAIN.teamAdmin, [SUB.plainSolo, SUB.plainQuiet]],
          ] as const) {
            for (const subteamId of subteams) {
              const expected = Model.last(fx.model.subteamLeads(subteamId));
              const leads = await subLast(adminId, subteamId);
              assert.deepEqual(
                leads,
                expected === undefined ? [] : [fx.model.wire(expected)],
                `${subteamId}`,
              );
            }
          }
        });
        test('a subteam whose members have no lead → exactly []', async () => {
          for (const memberId of [PLAIN.teamAdmin, PLAIN.subAdmin]) {
            const res = await call(app, at(SUB.plainQuiet), fx.key(memberId));
            assertLeads(res);
            assert.equal(res.body, '[]');
          }
        });
      });

      describe('C4: equal epoch → the one stored last', () => {
        test('2011’s newest epoch is held by 30007, 30008 (member 1013) and 30009 (1014, stored last)', async () => {
          const [l] = await subLast(BERLIN.teamAdmin, SUB.berlinField);
          assert.equal(l?.epoch, BERLIN_TIE);
          assert.equal(l?.id, '30009');
        });
      });

      describe('C2: a subteam’s leads are those of its current members', () => {
        test('its admin’s own newer lead is not the subteam’s when the admin is not a member', async () => {
          // 1012 administers 2011 without being in it; 1012 and 1015 hold newer leads than 2011's members.
          const [l] = await subLast(BERLIN.subAdmin, SUB.berlinField);
          assert.equal(l?.id, '30009');
          const [plain] = await subLast(PLAIN.subAdmin, SUB.plainSolo);
          assert.equal(plain?.id, '70002', 'not 70005 (the admin’s) nor 70004 (the team admin’s)');
        });
        test('re-importing the subteam with other members changes the answer', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            const ask = async () =>
              assertLeads(await call(ownApp, at(SUB.berlinField), own.key(BERLIN.teamAdmin)));
            const setMembers = (members: number[]) =>
              importMore(own, [
                {
                  type: 'subteam',
                  id: SUB.berlinField,
                  teamId: BERLIN.id,
                  name: 'Field sales',
                  members,
                  admins: [1012],
                },
              ]);
            assert.equal((await ask())[0]?.id, '30009');
            await setMembers([BERLIN.teamAdmin]);
            assert.deepEqual(await ask(), [own.model.wire(own.model.lead('greta@kunde.test'))]);
            await setMembers([BERLIN.subAdmin, BERLIN.member]);
            assert.equal((await ask())[0]?.id, '30010');
            await setMembers([]);
            assert.equal((await call(ownApp, at(SUB.berlinField), own.key(BERLIN.teamAdmin))).body, '[]');
          });
        });
        test('a subteam member who moved to another team no longer counts', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              { type: 'member', id: 1014, teamId: PLAIN.id, email: 'max@spree.test', pid: '7014' },
            ]);
            const [l] = assertLeads(await call(ownApp, at(SUB.berlinField), own.key(BERLIN.teamAdmin)));
            assert.equal(l?.id, '30008', '1013’s lead, stored last among what is left');
          });
        });
      });

      describe('C2: team admins, or admins of that subteam', () => {
        test('a subteam admin who is not a member reads it like the team admin', async () => {
          const asAdmin = await call(app, at(SUB.berlinField), fx.key(BERLIN.teamAdmin));
          const asSubAdmin = await call(app, at(SUB.berlinField), fx.key(BERLIN.subAdmin));
          assertLeads(asSubAdmin);
          assert.equal(asSubAdmin.body, asAdmin.body);
          assert.equal(asSubAdmin.headers.etag, asAdmin.headers.etag);
        });
        test('a subteam admin who is a member, and an admin of two subteams', async () => {
          assert.equal((await subLast(LA.subAdmin, SUB.laWest))[0]?.id, '50003');
          assert.equal((await subLast(1015, SUB.berlinInside))[0]?.id, '30011');
          assert.equal((await subLast(PLAIN.subAdmin, SUB.plainSolo))[0]?.id, '70002');
        });
      });
    });

    describe('errors', () => {
      describe('C2: 403 for a non-admin of that subteam', () => {
        test('the admin of 2011 on 2012 (where they are only a member) → 403', async () => {
          assertProblem(
            await call(app, at(SUB.berlinInside), fx.key(BERLIN.subAdmin)),
            403,
            'forbidden',
            fx.model,
          );
        });
        test('the admin of 2012 on 2011 → 403', async () => {
          assertProblem(await call(app, at(SUB.berlinField), fx.key(1015)), 403, 'forbidden', fx.model);
        });
        test('a subteam admin demoted by re-import → 403', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              {
                type: 'subteam',
                id: SUB.laWest,
                teamId: LA.id,
                name: 'West',
                members: [1022, 1023],
                admins: [],
              },
            ]);
            assertProblem(
              await call(ownApp, at(SUB.laWest), own.key(LA.subAdmin)),
              403,
              'forbidden',
              own.model,
            );
          });
        });
      });

      describe('C2: 404 for another team’s subteam and for an unknown one, alike', () => {
        for (const [label, memberId] of [
          ['team admin', LA.teamAdmin],
          ['subteam admin', LA.subAdmin],
          ['member', LA.member],
        ] as const) {
          test(`${label}: foreign 2011, foreign 2031 and unknown 4242 → the same 404`, async () => {
            const bodies = [];
            for (const id of [SUB.berlinField, SUB.plainSolo, 4242]) {
              const res = await call(app, at(id), fx.key(memberId));
              const { instance: _instance, ...rest } = assertProblem(res, 404, 'not-found', fx.model);
              bodies.push(JSON.stringify(rest).replace(String(id), '<id>'));
            }
            assert.equal(new Set(bodies).size, 1);
          });
        }
        test('an id beyond any integer the store can hold → 404, not an error', async () => {
          const res = await call(app, at('123456789012345678901234567890'), fx.key(LA.teamAdmin));
          assertProblem(res, 404, 'not-found', fx.model);
        });
      });

      describe('C3: subTeamId is required, given once, a positive decimal integer; otherwise 400', () => {
        for (const query of BAD_SUBTEAM_QUERIES) {
          test(`?${query} → 400 naming subTeamId`, async () => {
            const res = await call(app, `${PATH}?${query}`, fx.key(BERLIN.teamAdmin));
            assertInvalidParams(assertProblem(res, 400, 'invalid-parameters', fx.model), ['subTeamId']);
          });
        }
        test('a valid id next to unknown parameters still answers', async () => {
          assertLeads(
            await call(app, `${PATH}?x=1&subTeamId=${SUB.berlinField}&y=`, fx.key(BERLIN.teamAdmin)),
          );
        });
      });
    });
  });

  describe(`getLastLeadSubTeam: shared v1 behaviour (${engine})`, () => {
    commonV1Suite({
      engine,
      op: 'getLastLeadSubTeam',
      memberId: BERLIN.subAdmin,
      query: `?subTeamId=${SUB.berlinField}`,
      collector: BERLIN.member,
    });
  });
}
