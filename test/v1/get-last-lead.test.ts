import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { commonV1Suite } from './common-suite.js';
import { BERLIN, EMPTY, type Fixture, importMore, LA, Model, PLAIN } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import { assertLeads, assertProblem, call, V1 } from './http-assert.js';

const PATH = `${V1}getLastLead`;

for (const engine of enginesUnderTest()) {
  describe(`getLastLead (operation 1): the caller’s own most recent lead (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));
    const lastOf = async (memberId: number) => assertLeads(await call(app, PATH, fx.key(memberId)));

    describe('happy', () => {
      describe('C4: [lead] with the greatest epoch of the caller’s own leads, [] when none', () => {
        test('every member gets exactly their own newest lead, as imported (C1 round trip)', async () => {
          for (const memberId of fx.model.members.keys()) {
            const expected = Model.last(fx.model.ownLeads(memberId));
            const leads = await lastOf(memberId);
            assert.deepEqual(
              leads,
              expected === undefined ? [] : [fx.model.wire(expected)],
              `member ${memberId}`,
            );
          }
        });
        test('spot checks: who gets which lead', async () => {
          assert.equal((await lastOf(BERLIN.teamAdmin))[0]?.id, 'greta@kunde.test');
          assert.equal((await lastOf(LA.member))[0]?.id, '50001');
          assert.equal((await lastOf(PLAIN.teamAdmin))[0]?.id, '70004');
        });
        test('lenient paths: a trailing or doubled slash names the same operation', async () => {
          const expected = (await call(app, PATH, fx.key(BERLIN.teamAdmin))).body;
          for (const path of [`${PATH}/`, PATH.replace('/leads/', '/leads//')]) {
            const res = await call(app, path, fx.key(BERLIN.teamAdmin));
            assert.equal(res.statusCode, 200, path);
            assert.equal(res.body, expected, path);
          }
        });
        test('a member without leads gets exactly []', async () => {
          for (const memberId of [1034, EMPTY.teamAdmin]) {
            const res = await call(app, PATH, fx.key(memberId));
            assertLeads(res);
            assert.equal(res.body, '[]');
          }
        });
        test('a team admin still gets only their own lead, not the team’s newest', async () => {
          const [own] = await lastOf(LA.teamAdmin);
          assert.equal(own?.id, '50004');
          assert.equal(own?.userId, LA.teamAdmin);
        });
      });

      describe('C4: equal epoch → the one stored last', () => {
        test('1013 holds 30007 and 30008 at the same epoch; 30008 was stored last', async () => {
          const [l] = await lastOf(BERLIN.member);
          assert.equal(l?.id, '30008');
          assert.equal(l?.time, 'tie b');
        });
        test('a lead that waited in the import for its member keeps its file position', async () => {
          const [l] = await lastOf(1015);
          assert.equal(l?.id, '30011');
        });
      });

      describe('C1: wire shape of a lead', () => {
        test('the fully populated connection lead comes back member for member', async () => {
          const [l] = await lastOf(BERLIN.teamAdmin);
          assert.deepEqual(l, {
            id: 'greta@kunde.test',
            epoch: 1_719_748_800_000,
            time: 'Jun 30, 2024 12:00 PM',
            userId: 1011,
            userEmail: 'ana.admin@spree.test',
            userPid: 'custom-pid-9',
            isManual: true,
            isLead: true,
            apptoapp: true,
            name: 'Greta Fullrecord',
            company: 'Kunde KG',
            jobTitle: 'CTO',
            email: 'greta@kunde.test',
            number: '4930123456',
            address: 'Unter den Linden 1, 10117 Berlin',
            website: 'https://kunde.test',
            linkedIn: 'https://linkedin.com/in/greta',
            fullContact: { twitter: 'https://twitter.com/greta', linkedin: 'https://linkedin.com/in/greta' },
            image: 'img/greta.png',
            note: 'Met at booth 4 — «sehr gut»',
            bio: 'Builds things',
            location: 'Berlin, BE',
            lat: '52.5200',
            long: '13.4050',
            attachments: [{ name: 'deck.pdf', url: 'https://files.test/deck.pdf' }, 'note.txt'],
            crm: { hubspot: { id: 'hs-1', synced: true }, tags: ['a', 'b'] },
            url: 'https://profile.test/mia',
            views: '12',
            pops: '3',
            pro: '1',
            mode: '0',
            v: '2',
            hash: 'a1b2c3',
            isLoggedIn: '1',
          });
        });
        test('lat/long only with consent: stored coordinates without consent are never emitted', async () => {
          const [withConsent] = await lastOf(LA.member);
          assert.equal(withConsent?.lat, '34.0522');
          assert.equal(withConsent?.long, '-118.2437');
          const [without] = await lastOf(1025);
          assert.equal(without?.id, '50002');
          assert.ok(!('lat' in (without ?? {})) && !('long' in (without ?? {})));
          const res = await call(app, PATH, fx.key(1025));
          assert.ok(!res.body.includes('34.1000') && !res.body.includes('-118.3000'));
          const [consentNoCoordinates] = await lastOf(PLAIN.member);
          assert.equal(consentNoCoordinates?.id, '70002');
          assert.ok(!('lat' in (consentNoCoordinates ?? {})));
        });
        test('time: kept verbatim when imported; else YYYY-MM-DD HH:mm:ss in the team zone', async () => {
          assert.equal((await lastOf(LA.member))[0]?.time, '2024-07-01 05:00:00'); // LA summer
          assert.equal((await lastOf(1025))[0]?.time, '2024-01-15 15:30:05'); // LA winter
          assert.equal((await lastOf(LA.subAdmin))[0]?.time, 'Jul 1, 2024 5:05 AM');
        });
        test('defaults: userPid = member pid, isManual/apptoapp/isRoll false; "" kept', async () => {
          const [conn] = await lastOf(LA.subAdmin);
          assert.equal(conn?.userPid, '7022');
          assert.equal(conn?.isManual, false);
          assert.equal(conn?.apptoapp, false);
          const [scan] = await lastOf(PLAIN.teamAdmin);
          assert.equal(scan?.isScan, true);
          assert.equal(scan?.isRoll, false);
          assert.ok(!('isLead' in (scan ?? {})) && !('apptoapp' in (scan ?? {})));
          const [withEmpty] = await lastOf(1025);
          assert.equal(withEmpty?.card, '');
          assert.equal(withEmpty?.isRoll, false);
        });
        test('userEmail is the collecting member’s e-mail, also after the member’s e-mail changes', async () => {
          assert.equal((await lastOf(LA.member))[0]?.userEmail, 'joe@pacific.test');
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              { type: 'member', id: LA.member, teamId: LA.id, email: 'joe.new@pacific.test', pid: '7023' },
            ]);
            const [l] = assertLeads(await call(ownApp, PATH, own.key(LA.member)));
            assert.equal(l?.userEmail, 'joe.new@pacific.test');
            assert.deepEqual(l, own.model.wire(own.model.lead('50001')));
          });
        });
      });

      describe('C2: the key in Authorization: <key> or Authorization: Bearer <key>', () => {
        test('bare key, "Bearer", "bearer" all answer the same', async () => {
          const key = fx.key(BERLIN.member);
          const bodies = [];
          for (const authorization of [key, `Bearer ${key}`, `bearer ${key}`, `Bearer   ${key}`]) {
            const res = await call(app, PATH, undefined, { headers: { authorization } });
            assertLeads(res);
            bodies.push(res.body);
          }
          assert.equal(new Set(bodies).size, 1);
        });
      });

      describe('C2: a member who moved to another team keeps their leads', () => {
        test('re-imported with another teamId, the member’s newest lead is still theirs', async () => {
          await withOwnFixture(engine, async (own, ownApp) => {
            await importMore(own, [
              { type: 'member', id: PLAIN.subAdmin, teamId: LA.id, email: 'tom@plain.test', pid: '7032' },
            ]);
            const [l] = assertLeads(await call(ownApp, PATH, own.key(PLAIN.subAdmin)));
            assert.equal(l?.id, '70005');
            assert.deepEqual(l, own.model.wire(own.model.lead('70005')));
          });
        });
      });
    });

    describe('errors', () => {
      test('C2: no key → 401 problem', async () => {
        assertProblem(await call(app, PATH), 401, 'unauthorized', fx.model);
      });
      test('C5: an unknown path under the v1 prefix → 404 problem with deprecation signals', async () => {
        assertProblem(
          await call(app, `${V1}getLastLeads`, fx.key(BERLIN.member)),
          404,
          'not-found',
          fx.model,
        );
      });
    });
  });

  describe(`getLastLead: shared v1 behaviour (${engine})`, () => {
    commonV1Suite({
      engine,
      op: 'getLastLead',
      memberId: BERLIN.member,
      query: '',
      collector: BERLIN.member,
    });
  });
}
