import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { commonV1Suite } from './common-suite.js';
import {
  B,
  BERLIN,
  BERLIN_TIE,
  BERLIN_TOP,
  bulkRecords,
  EMPTY,
  type Fixture,
  importMore,
  LA,
  Model,
  PLAIN,
  W,
} from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import {
  assertConsent,
  assertInvalidParams,
  assertLeads,
  assertProblem,
  assertRateLimitFields,
  BAD_RANGE_QUERIES,
  call,
  ids,
  V1,
} from './http-assert.js';

const PATH = `${V1}getLeadsTimeRangeForTeam`;
const MIN = 60_000;

for (const engine of enginesUnderTest()) {
  describe(`getLeadsTimeRangeForTeam (operation 5): every lead of the caller’s team in [start, end) (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));
    const range = async (memberId: number, query: string) =>
      assertLeads(await call(app, `${PATH}?${query}`, fx.key(memberId)));

    describe('happy', () => {
      describe('C4: ascending by epoch, every lead of the team and no other, each as imported (C1)', () => {
        test('each team admin, start=0: exactly the team’s leads, member for member', async () => {
          for (const team of [BERLIN, LA, PLAIN]) {
            const want = Model.range(fx.model.teamLeads(team.id), 0, null).map((l) => fx.model.wire(l));
            const leads = await range(team.teamAdmin, 'start=0');
            assert.deepEqual(leads, want, `team ${team.id}`);
            assertConsent(fx.model, leads);
            assert.ok(leads.every((l) => fx.model.member(Number(l.userId)).teamId === team.id));
          }
        });
        test('spot check: Berlin, in order, ties in storage order', async () => {
          assert.deepEqual(ids(await range(BERLIN.teamAdmin, 'start=0')), [
            `30005@${W}`,
            `30001@${B - 2 * 86_400_000}`,
            `greta@kunde.test@${B - 86_400_000}`,
            `30004@${B - 120 * MIN}`,
            `+4915112345678@${B - 60 * MIN}`,
            `30006@${B - 30 * MIN}`,
            `30007@${BERLIN_TIE}`,
            `30008@${BERLIN_TIE}`,
            `30009@${BERLIN_TIE}`,
            `30010@${BERLIN_TOP}`,
            `30011@${BERLIN_TOP}`,
          ]);
        });
        test('lat/long only for consenting leads, across the whole team', async () => {
          const res = await call(app, `${PATH}?start=0`, fx.key(LA.teamAdmin));
          const leads = assertLeads(res);
          assert.equal(leads.find((l) => l.id === '50001')?.lat, '34.0522');
          const hidden = leads.find((l) => l.id === '50002');
          assert.ok(hidden && !('lat' in hidden) && !('long' in hidden));
          assert.ok(!res.body.includes('34.1000') && !res.body.includes('-118.3000'));
        });
        test('team without leads → exactly []', async () => {
          const res = await call(app, `${PATH}?start=0`, fx.key(EMPTY.teamAdmin));
          assertLeads(res);
          assert.equal(res.body, '[]');
        });
      });

      describe('C4: equal epochs in the order the service stored them', () => {
        test('three leads of two members at one epoch, and a lead that waited for its member', async () => {
          assert.deepEqual(
            (await range(BERLIN.teamAdmin, `start=${BERLIN_TIE}`)).map((l) => l.id),
            ['30007', '30008', '30009', '30010', '30011'],
          );
        });
      });

      describe('C3: the range is half-open, start <= epoch < end', () => {
        test('[BERLIN_TIE, BERLIN_TOP) holds the ties and not the top', async () => {
          assert.deepEqual(
            (await range(BERLIN.teamAdmin, `start=${BERLIN_TIE}&end=${BERLIN_TOP}`)).map((l) => l.id),
            ['30007', '30008', '30009'],
          );
        });
        test('end == start → [] even where leads sit at that epoch', async () => {
          const res = await call(
            app,
            `${PATH}?start=${BERLIN_TOP}&end=${BERLIN_TOP}`,
            fx.key(BERLIN.teamAdmin),
          );
          assertLeads(res);
          assert.equal(res.body, '[]');
        });
        test('without end: everything from start on', async () => {
          const want = Model.range(fx.model.teamLeads(PLAIN.id), W, null).map((l) => fx.model.wire(l));
          assert.deepEqual(await range(PLAIN.teamAdmin, `start=${W}`), want);
          assert.ok(!want.some((l) => l.id === '0'));
        });
        test('walking adjacent windows returns every lead exactly once', async () => {
          for (const team of [BERLIN, LA, PLAIN]) {
            const all = await range(team.teamAdmin, 'start=0');
            const epochs = [...new Set(all.map((l) => Number(l.epoch)))];
            const cuts = [
              ...new Set([0, ...epochs, ...epochs.map((e) => e + 1), ...epochs.map((e) => e - 7)]),
            ]
              .filter((c) => c >= 0)
              .sort((a, b) => a - b);
            const walked: Record<string, unknown>[] = [];
            for (let i = 0; i < cuts.length; i++) {
              const q = i + 1 < cuts.length ? `start=${cuts[i]}&end=${cuts[i + 1]}` : `start=${cuts[i]}`;
              walked.push(...(await range(team.teamAdmin, q)));
            }
            assert.deepEqual(walked, all, `team ${team.id}`);
          }
        });
      });

      describe('C2: a team’s leads are its members’; a member who moves takes them along', () => {
        test('1032 re-imported into team 102: 70005 leaves team 103’s answer and joins team 102’s', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              { type: 'member', id: PLAIN.subAdmin, teamId: LA.id, email: 'tom@plain.test', pid: '7032' },
            ]);
            const la = assertLeads(await call(ownApp, `${PATH}?start=0`, own.key(LA.teamAdmin)));
            assert.ok(la.some((l) => l.id === '70005'));
            assert.deepEqual(
              la,
              Model.range(own.model.teamLeads(LA.id), 0, null).map((l) => own.model.wire(l)),
            );
            assert.equal(la.at(-1)?.id, '70005');
            const plain = assertLeads(await call(ownApp, `${PATH}?start=0`, own.key(PLAIN.teamAdmin)));
            assert.ok(!plain.some((l) => l.id === '70005'));
            assert.deepEqual(
              plain.map((l) => l.id),
              ['0', 'eve.contact@plain-lead.test', '70002', '70004'],
            );
          });
        });
      });

      describe('C4: no page size and no cap', () => {
        test('2 × 1200 leads, many equal epochs across batch boundaries: all, ascending, storage order', async () => {
          await withOwnFixture(
            engine,
            async (bulk, bulkApp) => {
              const leads = assertLeads(await call(bulkApp, `${PATH}?start=0`, bulk.key(9011)));
              const want = Model.range(bulk.model.teamLeads(901), 0, null);
              assert.equal(leads.length, 2400);
              assert.deepEqual(
                leads,
                want.map((l) => bulk.model.wire(l)),
              );
              assert.equal(new Set(ids(leads)).size, 2400);
            },
            bulkRecords(1200),
          );
        });
      });
    });

    describe('errors', () => {
      describe('C2: team admins only → 403 for everyone else', () => {
        for (const [label, memberId] of [
          ['subteam admin, not a member of the subteam', BERLIN.subAdmin],
          ['subteam admin and member', LA.subAdmin],
          ['plain member', PLAIN.member],
          ['member who administers a subteam', 1015],
        ] as const) {
          test(label, async () => {
            const res = await call(app, `${PATH}?start=0`, fx.key(memberId));
            assertProblem(res, 403, 'forbidden', fx.model);
            assertRateLimitFields(res);
          });
        }
      });

      describe('C3: start required, end optional, both plain decimal integers in range; end >= start', () => {
        for (const [query, names] of BAD_RANGE_QUERIES) {
          test(`?${query} → 400 naming ${names.join(', ')}`, async () => {
            const res = await call(app, `${PATH}?${query}`, fx.key(BERLIN.teamAdmin));
            assertInvalidParams(assertProblem(res, 400, 'invalid-parameters', fx.model), names);
            assertRateLimitFields(res);
          });
        }
      });
    });
  });

  describe(`getLeadsTimeRangeForTeam: shared v1 behaviour (${engine})`, () => {
    commonV1Suite({ engine, op: 'getLeadsTimeRangeForTeam', memberId: BERLIN.teamAdmin, query: '?start=0' });
  });
}
