import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { commonV1Suite } from './common-suite.js';
import { B, BERLIN, BERLIN_TIE, bulkRecords, type Fixture, LA, Model, PLAIN } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import {
  assertInvalidParams,
  assertLeads,
  assertProblem,
  BAD_RANGE_QUERIES,
  call,
  ids,
  V1,
} from './http-assert.js';

const PATH = `${V1}getLeadsTimeRange`;
const MAX = 8_640_000_000_000_000;

for (const engine of enginesUnderTest()) {
  describe(`getLeadsTimeRange (operation 4): the caller’s own leads in [start, end) (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));
    const range = async (memberId: number, query: string) =>
      assertLeads(await call(app, `${PATH}?${query}`, fx.key(memberId)));
    const expected = (memberId: number, start: number, end: number | null) =>
      Model.range(fx.model.ownLeads(memberId), start, end).map((l) => fx.model.wire(l));

    describe('happy', () => {
      describe('C4: ascending by epoch, the caller’s own leads only, each as imported (C1)', () => {
        test('every member, start=0: exactly their leads, oldest first, member for member', async () => {
          for (const memberId of fx.model.members.keys()) {
            assert.deepEqual(
              await range(memberId, 'start=0'),
              expected(memberId, 0, null),
              `member ${memberId}`,
            );
          }
        });
        test('spot check: member 1013', async () => {
          assert.deepEqual(ids(await range(BERLIN.member, 'start=0')), [
            `+4915112345678@${B - 3_600_000}`,
            `30006@${B - 1_800_000}`,
            `30007@${BERLIN_TIE}`,
            `30008@${BERLIN_TIE}`,
          ]);
        });
        test('a team admin gets only their own leads', async () => {
          const leads = await range(LA.teamAdmin, 'start=0');
          assert.deepEqual(ids(leads), [`50004@${B + 30 * 60_000}`]);
        });
      });

      describe('C4: leads with equal epoch in the order the service stored them', () => {
        test('30007 was stored before 30008', async () => {
          const leads = await range(BERLIN.member, `start=${BERLIN_TIE}&end=${BERLIN_TIE + 1}`);
          assert.deepEqual(
            leads.map((l) => l.id),
            ['30007', '30008'],
          );
        });
      });

      describe('C1: presence rules, consent, empty strings, generated time', () => {
        test('a non-consenting lead with stored coordinates carries no lat/long', async () => {
          const res = await call(app, `${PATH}?start=0`, fx.key(BERLIN.member));
          const hidden = assertLeads(res).find((l) => l.id === '+4915112345678');
          assert.ok(hidden);
          assert.ok(!('lat' in hidden) && !('long' in hidden));
          assert.ok(!res.body.includes('52.1000') && !res.body.includes('13.1000'));
          assert.equal(hidden.time, '2024-07-01 13:00:00', 'generated in Europe/Berlin (summer)');
        });
        test('locationShared omitted means no consent; the winter label is in Berlin time', async () => {
          const res = await call(app, `${PATH}?start=0`, fx.key(1014));
          const leads = assertLeads(res);
          const winter = leads.find((l) => l.id === '30005');
          assert.deepEqual(winter, {
            id: '30005',
            epoch: 1_705_361_405_000,
            time: '2024-01-16 00:30:05',
            userId: 1014,
            userEmail: 'max@spree.test',
            userPid: '7014',
            isManual: false,
            isScan: true,
            isRoll: false,
            name: 'Wanda Winter',
          });
          assert.ok(!res.body.includes('48.1000'));
          const scan = leads.find((l) => l.id === '30004');
          assert.equal(scan?.lat, '-33.8688');
          assert.equal(scan?.long, '151.2093');
          assert.equal(scan?.noService, true);
          assert.equal(scan?.card, 'card-30004.jpg');
        });
        test('collected empty strings come back as "", never dropped or null', async () => {
          const l = (await range(BERLIN.member, 'start=0')).find((x) => x.id === '30006');
          assert.ok(l);
          for (const m of ['time', 'name', 'company', 'note', 'isLoggedIn', 'views'])
            assert.equal(l[m], '', m);
          assert.equal(l.apptoapp, false);
          assert.equal(l.isManual, true);
        });
        test('epoch 0 is a lead like any other; its label is UTC midnight in the default zone', async () => {
          const leads = await range(PLAIN.member, 'start=0&end=1');
          assert.deepEqual(ids(leads), ['0@0']);
          assert.equal(leads[0]?.time, '1970-01-01 00:00:00');
        });
      });

      describe('C3: the range is half-open, start <= epoch < end', () => {
        test('start is inclusive', async () => {
          assert.deepEqual(ids(await range(BERLIN.member, `start=${BERLIN_TIE}`)), [
            `30007@${BERLIN_TIE}`,
            `30008@${BERLIN_TIE}`,
          ]);
          assert.deepEqual(await range(BERLIN.member, `start=${BERLIN_TIE + 1}`), []);
        });
        test('end is exclusive', async () => {
          assert.deepEqual(
            (await range(BERLIN.member, `start=0&end=${BERLIN_TIE}`)).map((l) => l.id),
            ['+4915112345678', '30006'],
          );
        });
        test('end == start → [] even where leads sit at that epoch', async () => {
          const res = await call(app, `${PATH}?start=${BERLIN_TIE}&end=${BERLIN_TIE}`, fx.key(BERLIN.member));
          assertLeads(res);
          assert.equal(res.body, '[]');
        });
        test('without end: every lead from start on; the bounds 0 and 8640000000000000 are valid', async () => {
          const all = await range(BERLIN.member, 'start=0');
          assert.deepEqual(await range(BERLIN.member, `start=0&end=${MAX}`), all);
          assert.deepEqual(await range(BERLIN.member, `start=${B}`), expected(BERLIN.member, B, null));
          assert.deepEqual(await range(BERLIN.member, `start=${MAX}`), []);
          assert.deepEqual(await range(BERLIN.member, `start=${MAX}&end=${MAX}`), []);
        });
        test('walking adjacent windows returns every lead exactly once', async () => {
          for (const memberId of [BERLIN.member, 1014, PLAIN.member]) {
            const all = await range(memberId, 'start=0');
            assert.ok(all.length >= 2);
            const epochs = [...new Set(all.map((l) => Number(l.epoch)))];
            const cuts = [...new Set([0, ...epochs, ...epochs.map((e) => e + 1), 1_000_000])].sort(
              (a, b) => a - b,
            );
            const walked: Record<string, unknown>[] = [];
            for (let i = 0; i < cuts.length; i++) {
              const q = i + 1 < cuts.length ? `start=${cuts[i]}&end=${cuts[i + 1]}` : `start=${cuts[i]}`;
              walked.push(...(await range(memberId, q)));
            }
            assert.deepEqual(walked, all, `member ${memberId}`);
          }
        });
      });

      describe('C4: no page size and no cap; [] when nothing matches', () => {
        test('2 × 1200 leads with many equal epochs: all of the caller’s, ascending, ties in storage order', async () => {
          await withOwnFixture(
            engine,
            async (bulk, bulkApp) => {
              const res = await call(bulkApp, `${PATH}?start=0`, bulk.key(9012));
              const leads = assertLeads(res);
              const want = Model.range(bulk.model.ownLeads(9012), 0, null);
              assert.equal(leads.length, 1200);
              assert.deepEqual(ids(leads), ids(want));
              assert.deepEqual(
                leads,
                want.map((l) => bulk.model.wire(l)),
              );
              // Adjacent one-second windows over the same data: each lead once.
              const walked: string[] = [];
              for (let s = B; s <= B + 97_000; s += 1000) {
                walked.push(
                  ...ids(
                    assertLeads(await call(bulkApp, `${PATH}?start=${s}&end=${s + 1000}`, bulk.key(9012))),
                  ),
                );
              }
              assert.deepEqual(walked, ids(want));
            },
            bulkRecords(1200),
          );
        });
        test('a member without leads, and a range past every lead → exactly []', async () => {
          for (const [memberId, q] of [
            [1034, 'start=0'],
            [BERLIN.member, `start=${B + 86_400_000}`],
            [BERLIN.member, 'start=0&end=1'],
          ] as const) {
            const res = await call(app, `${PATH}?${q}`, fx.key(memberId));
            assertLeads(res);
            assert.equal(res.body, '[]');
          }
        });
      });
    });

    describe('errors', () => {
      describe('C3: start required, end optional, both plain decimal integers in range; end >= start', () => {
        for (const [query, names] of BAD_RANGE_QUERIES) {
          test(`?${query} → 400 naming ${names.join(', ')}`, async () => {
            const res = await call(app, `${PATH}?${query}`, fx.key(BERLIN.member));
            assertInvalidParams(assertProblem(res, 400, 'invalid-parameters', fx.model), names);
          });
        }
        test('HEAD with a bad start → 400 as well', async () => {
          const res = await call(app, `${PATH}?start=x`, fx.key(BERLIN.member), { method: 'HEAD' });
          assert.equal(res.statusCode, 400);
        });
      });
    });
  });

  describe(`getLeadsTimeRange: shared v1 behaviour (${engine})`, () => {
    commonV1Suite({ engine, op: 'getLeadsTimeRange', memberId: BERLIN.member, query: '?start=0' });
  });
}
