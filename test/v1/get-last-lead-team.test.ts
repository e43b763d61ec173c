// tier: quick — in `npm run test:quick` (README "Test it"): fast, SQLite only
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { commonV1Suite } from './common-suite.js';
import { BERLIN, BERLIN_TOP, EMPTY, type Fixture, importMore, LA, Model, PLAIN } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import { assertLeads, assertProblem, assertRateLimitFields, call, V1 } from './http-assert.js';

const PATH = `${V1}getLastLeadTeam`;

for (const engine of enginesUnderTest()) {
  describe(`getLastLeadTeam (operation 2): the most recent lead of the caller’s team (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));
    const teamLast = async (adminId: number) => assertLeads(await call(app, PATH, fx.key(adminId)));

    describe('happy', () => {
      describe('C4: [lead] with the greatest epoch of anyone on the team, [] when none', () => {
        test('each team admin gets their team’s newest lead, as imported (C1 round trip)', async () => {
          for (const team of [BERLIN, LA, PLAIN]) {
            const expected = Model.last(fx.model.teamLeads(team.id));
            assert.ok(expected);
            assert.deepEqual(await teamLast(team.teamAdmin), [fx.model.wire(expected)], `team ${team.id}`);
          }
        });
        test('spot checks: the newest lead may be any member’s, never another team’s', async () => {
          assert.equal((await teamLast(LA.teamAdmin))[0]?.id, '50005'); // collected by member 1024
          assert.equal((await teamLast(PLAIN.teamAdmin))[0]?.id, '70005'); // by the subteam admin
        });
        test('a team without leads → exactly []', async () => {
          const res = await call(app, PATH, fx.key(EMPTY.teamAdmin));
          assertLeads(res);
          assert.equal(res.body, '[]');
        });
      });

      describe('C4: equal epoch → the one stored last', () => {
        test('Berlin’s newest epoch is shared by 30010 (stored first) and 30011 (stored last)', async () => {
          const [l] = await teamLast(BERLIN.teamAdmin);
          assert.equal(l?.epoch, BERLIN_TOP);
          assert.equal(l?.id, '30011');
          assert.equal(l?.userPid, '9915');
          assert.equal(l?.userEmail, 'lea@spree.test');
        });
      });

      describe('C2: a team’s leads are those of its members; a member who moves takes them along', () => {
        test('re-importing 1032 into team 102 moves 70005 from team 103’s answer to team 102’s', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            const before = assertLeads(await call(ownApp, PATH, own.key(LA.teamAdmin)));
            assert.equal(before[0]?.id, '50005');
            await importMore(own, [
              { type: 'member', id: PLAIN.subAdmin, teamId: LA.id, email: 'tom@plain.test', pid: '7032' },
            ]);
            const la = assertLeads(await call(ownApp, PATH, own.key(LA.teamAdmin)));
            assert.equal(la[0]?.id, '70005');
            assert.deepEqual(la, [own.model.wire(own.model.lead('70005'))]);
            const plain = assertLeads(await call(ownApp, PATH, own.key(PLAIN.teamAdmin)));
            assert.equal(plain[0]?.id, '70004');
          });
        });
        test('a lead imported later for any member becomes the team’s newest', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              { type: 'lead', userId: 1014, id: 'fresh', epoch: BERLIN_TOP, isLead: true, name: 'Fresh Tie' },
            ]);
            const [l] = assertLeads(await call(ownApp, PATH, own.key(BERLIN.teamAdmin)));
            assert.equal(l?.id, 'fresh', 'equal epoch, stored after 30011');
            assert.equal(l?.time, '2024-07-01 14:20:00', 'generated in Europe/Berlin');
          });
        });
      });
    });

    describe('errors', () => {
      describe('C2: team admins only → 403 for everyone else', () => {
        for (const [label, memberId] of [
          ['subteam admin (not a member of the subteam)', BERLIN.subAdmin],
          ['subteam admin and member', LA.subAdmin],
          ['plain member', PLAIN.member],
          ['member who administers subteam 2012', 1015],
        ] as const) {
          test(label, async () => {
            const res = await call(app, PATH, fx.key(memberId));
            assertProblem(res, 403, 'forbidden', fx.model);
            assertRateLimitFields(res);
          });
        }
        test('a member promoted to admin by re-import gets 200; demoted again, 403', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            const key = own.key(BERLIN.member);
            const promote = (role: 'admin' | 'member') =>
              importMore(own, [
                {
                  type: 'member',
                  id: BERLIN.member,
                  teamId: BERLIN.id,
                  email: 'mia@spree.test',
                  role,
                  pid: '7013',
                },
              ]);
            await promote('admin');
            assert.equal(assertLeads(await call(ownApp, PATH, key))[0]?.id, '30011');
            await promote('member');
            assertProblem(await call(ownApp, PATH, key), 403, 'forbidden', own.model);
          });
        });
      });
    });
  });

  describe(`getLastLeadTeam: shared v1 behaviour (${engine})`, () => {
    commonV1Suite({ engine, op: 'getLastLeadTeam', memberId: BERLIN.teamAdmin, query: '', collector: 1014 });
  });
}
