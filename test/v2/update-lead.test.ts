import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, makeApp } from '../support/helpers.js';
import { assertV2Ok, assertV2Problem, get, post, V2 } from './client.js';

/**
 * Issue 39 over HTTP: PATCH /api/pub/v2/leads/{leadId} (merge patch, ETag, If-Match, 428 when
 * required, who may), POST …/{leadId}/merge, POST …/duplicates — and v1 answering the current
 * values, without merged leads. docs/v2.md "Update a lead", "Merge leads", "Find duplicates".
 */
const TEAM = 3901;
const OTHER_TEAM = 3902;
const M = { admin: 39011, subAdmin: 39012, mia: 39013, max: 39014, outsider: 39021 } as const;
const SUBTEAM = 39101;
const MERGE_PATCH = 'application/merge-patch+json';
let n = 0;
const lead = (userId: number, id: string, more: object) => ({
  type: 'lead',
  userId,
  id,
  epoch: Date.parse('2025-05-01T09:00:00Z') + ++n * 60_000,
  isLead: true,
  ...more,
});

type V2LeadBody = {
  data: { leadId: string; legacyLeadId: string; systemFields: Record<string, unknown> };
};

async function patch(
  app: FastifyInstance,
  leadId: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'PATCH',
    url: `${V2}/${leadId}`,
    headers: { 'content-type': MERGE_PATCH, ...auth(key), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

for (const engine of enginesUnderTest()) {
  describe(`v2 lead update, merge, duplicates [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    const key = {} as Record<keyof typeof M, string>;
    const id: Record<string, string> = {};

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Update Co' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        { type: 'member', id: M.admin, teamId: TEAM, email: 'admin@u.test', role: 'admin', pid: 'p1' },
        { type: 'member', id: M.subAdmin, teamId: TEAM, email: 'sub@u.test', pid: 'p2' },
        { type: 'member', id: M.mia, teamId: TEAM, email: 'mia@u.test', pid: 'p3' },
        { type: 'member', id: M.max, teamId: TEAM, email: 'max@u.test', pid: 'p4' },
        {
          type: 'member',
          id: M.outsider,
          teamId: OTHER_TEAM,
          email: 'o@else.test',
          role: 'admin',
          pid: 'p5',
        },
        { type: 'subteam', id: SUBTEAM, teamId: TEAM, name: 'Field', members: [M.mia], admins: [M.subAdmin] },
        lead(M.mia, 'u1', { name: 'Anna Berg', email: 'Anna@X.test', company: 'Acme' }),
        lead(M.mia, 'u2', { email: ' anna@x.test ', jobTitle: 'CTO', number: '+49 151 123456' }),
        lead(M.mia, 'u3', { name: 'A. Berg', number: '49151123456', location: 'Berlin' }),
        lead(M.max, 'u4', { name: 'Max Lead', email: 'max.lead@y.test' }),
        lead(M.admin, 'u5', { name: 'Solo', email: 'solo@z.test' }),
        lead(M.outsider, 'o1', { name: 'Elsewhere', email: 'anna@x.test' }),
      ]);
      for (const [name, member] of Object.entries(M))
        key[name as keyof typeof M] = await keyFor(store, { member, legacyV1: true });
      app = await makeApp(store);
      for (const k of [key.admin, key.outsider]) {
        const res = await post(app, `${V2}/search`, k, {
          filters: { teamId: k === key.admin ? TEAM : OTHER_TEAM },
        });
        for (const l of (JSON.parse(res.body) as { data: { leads: V2LeadBody['data'][] } }).data.leads)
          id[l.legacyLeadId] = l.leadId;
      }
      assert.equal(Object.keys(id).length, 6);
    });
    after(async () => {
      await app?.close();
      await made?.cleanup();
    });

    test('GET carries the version as ETag; a PATCH changes the named members and answers the next version', async () => {
      const before = await get(app, `${V2}/${id.u1}`, key.mia);
      assertV2Ok(before);
      assert.equal(before.headers.etag, '"1"');
      const res = await patch(app, id.u1!, key.mia, {
        systemFields: { jobTitle: 'Founder', companyName: null, email: 'anna@new.test' },
      });
      const body = assertV2Ok(res) as V2LeadBody;
      assert.equal(res.headers.etag, '"2"');
      assert.equal(body.data.systemFields.jobTitle, 'Founder');
      assert.equal(body.data.systemFields.companyName, null);
      assert.equal(body.data.systemFields.email, 'anna@new.test');
      assert.equal(body.data.systemFields.fullName, 'Anna Berg', 'a member left out stays');
      const again = await get(app, `${V2}/${id.u1}`, key.admin);
      assert.equal(again.headers.etag, '"2"');
      assert.deepEqual((JSON.parse(again.body) as V2LeadBody).data, body.data);
      // application/json is read as a merge patch too; a patch that changes nothing keeps the version.
      const same = await app.inject({
        method: 'PATCH',
        url: `${V2}/${id.u1}`,
        headers: { 'content-type': 'application/json', ...auth(key.admin) },
        payload: JSON.stringify({ systemFields: { jobTitle: 'Founder' } }),
      });
      assertV2Ok(same);
      assert.equal(same.headers.etag, '"2"');
    });

    test('v1 answers the current values after an update', async () => {
      await patch(app, id.u5!, key.admin, { systemFields: { fullName: 'Solo Changed' } });
      const res = await app.inject({
        method: 'GET',
        url: '/api/pub/leads/getLastLead',
        headers: auth(key.admin),
      });
      assert.equal(res.statusCode, 200, res.body);
      const [last] = JSON.parse(res.body) as { id: string; name: string }[];
      assert.equal(last?.id, 'u5');
      assert.equal(last?.name, 'Solo Changed');
    });

    test('If-Match: of two writers on one version exactly one wins, the other gets 412 with the current version', async () => {
      const tag = (await get(app, `${V2}/${id.u4}`, key.admin)).headers.etag as string;
      const results = await Promise.all(
        ['First', 'Second'].map((t) =>
          patch(app, id.u4!, key.admin, { systemFields: { jobTitle: t } }, { 'if-match': tag }),
        ),
      );
      const codes = results.map((r) => r.statusCode).sort();
      assert.deepEqual(codes, [200, 412], results.map((r) => r.body).join('\n'));
      const lost = results.find((r) => r.statusCode === 412)!;
      const problem = assertV2Problem(lost, 412, 'precondition-failed') as { currentVersion?: number };
      assert.equal(problem.currentVersion, Number(tag.replaceAll('"', '')) + 1);
      const won = results.find((r) => r.statusCode === 200)!;
      assert.equal(won.headers.etag, `"${problem.currentVersion}"`);
      // A stale tag, a weak tag and a list.
      assertV2Problem(
        await patch(app, id.u4!, key.admin, { systemFields: { note: 'x' } }, { 'if-match': tag }),
        412,
        'precondition-failed',
      );
      for (const bad of [`W/${tag}`, `${tag}, "9"`, '3'])
        assert.equal(
          assertV2Problem(
            await patch(app, id.u4!, key.admin, { systemFields: { note: 'x' } }, { 'if-match': bad }),
            400,
            'invalid-parameters',
          ).invalid_params?.[0]?.name,
          'If-Match',
        );
      // `*`: the lead as it is.
      assertV2Ok(
        await patch(app, id.u4!, key.admin, { systemFields: { note: 'star' } }, { 'if-match': '*' }),
      );
    });

    test('without If-Match the last write wins and every write is announced', async () => {
      const endpoint = await store.webhooks.addEndpoint({
        teamId: TEAM,
        url: 'https://hooks.example.com/updates',
        description: null,
        eventTypes: ['lead.updated'],
        members: null,
        subteams: null,
        secret: 'whsec_x',
        includePrevious: false,
        // Now: the log holds the earlier tests' events too (every event is logged, endpoint or
        // not), and an endpoint receives those stored from its registration on.
        createdAt: Date.now(),
      });
      const later = Date.now() + 60_000;
      const results = await Promise.all(
        ['One', 'Two', 'Three'].map((t) => patch(app, id.u4!, key.admin, { systemFields: { jobTitle: t } })),
      );
      for (const r of results) assertV2Ok(r);
      const versions = results.map((r) => Number((r.headers.etag as string).replaceAll('"', ''))).sort();
      assert.equal(new Set(versions).size, 3, 'three writes, three versions');
      const last = results.find((r) => r.headers.etag === `"${versions[2]}"`)!;
      const now = assertV2Ok(await get(app, `${V2}/${id.u4}`, key.admin)) as V2LeadBody;
      assert.equal(
        now.data.systemFields.jobTitle,
        (JSON.parse(last.body) as V2LeadBody).data.systemFields.jobTitle,
      );
      while ((await store.deliveries.dispatch(100, later)) > 0);
      const bodies = (await store.deliveries.claim(100, later))
        .filter((d) => d.endpointId === endpoint.id)
        .map(
          (d) =>
            JSON.parse(d.payload) as {
              type: string;
              data: { leadId: string; changeSource: string; changedFields: string[] };
            },
        );
      assert.equal(bodies.length, 3);
      for (const b of bodies) {
        assert.equal(b.type, 'lead.updated');
        assert.equal(b.data.leadId, id.u4);
        assert.equal(b.data.changeSource, 'api');
        assert.deepEqual(b.data.changedFields, ['systemFields.jobTitle']);
      }
      await store.webhooks.removeEndpoint('operator', endpoint.id);
    });

    test('LEADLINE_REQUIRE_IF_MATCH=true: a change without If-Match is 428; with it, it goes through', async () => {
      const strict = await makeApp(store, { LEADLINE_REQUIRE_IF_MATCH: 'true' });
      try {
        assertV2Problem(
          await patch(strict, id.u4!, key.admin, { systemFields: { note: 'n' } }),
          428,
          'precondition-required',
        );
        const merge = await strict.inject({
          method: 'POST',
          url: `${V2}/${id.u4}/merge`,
          headers: { 'content-type': 'application/json', ...auth(key.admin) },
          payload: JSON.stringify({ mergeLeadIds: [id.u5] }),
        });
        assertV2Problem(merge, 428, 'precondition-required');
        const tag = (await get(strict, `${V2}/${id.u4}`, key.admin)).headers.etag as string;
        assertV2Ok(
          await patch(strict, id.u4!, key.admin, { systemFields: { note: 'n' } }, { 'if-match': tag }),
        );
      } finally {
        await strict.close();
      }
    });

    test('who may: a member its own leads, a team admin the team’s; readable but not writable is 403, unseen 404', async () => {
      assertV2Problem(await patch(app, id.u4!, key.mia, { systemFields: { note: 'n' } }), 404, 'not-found');
      assertV2Problem(
        await patch(app, id.u1!, key.subAdmin, { systemFields: { note: 'n' } }),
        403,
        'forbidden',
      );
      assertV2Problem(await patch(app, id.o1!, key.admin, { systemFields: { note: 'n' } }), 404, 'not-found');
      assertV2Problem(
        await patch(app, 'not-a-uuid', key.admin, { systemFields: { note: 'n' } }),
        404,
        'not-found',
      );
      const noKey = await app.inject({
        method: 'PATCH',
        url: `${V2}/${id.u1}`,
        headers: { 'content-type': MERGE_PATCH },
        payload: '{}',
      });
      assertV2Problem(noKey, 401, 'unauthorized');
    });

    test('bad patches: read-only members, unknown members, not JSON, another media type — nothing changes', async () => {
      const tag = (await get(app, `${V2}/${id.u2}`, key.mia)).headers.etag;
      // (assertV2Problem refuses `leadId"` in a body: here the problem names the member on purpose.)
      const readOnlyRes = await patch(app, id.u2!, key.mia, {
        leadId: id.u1,
        systemFields: { userPid: 'x' },
      });
      assert.equal(readOnlyRes.statusCode, 400, readOnlyRes.body);
      const readOnly = JSON.parse(readOnlyRes.body) as { type: string; invalid_params?: { name: string }[] };
      assert.match(readOnly.type, /\/problems\/invalid-parameters$/);
      assert.deepEqual(
        readOnly.invalid_params?.map((p) => p.name),
        ['/leadId', '/systemFields/userPid'],
      );
      assertV2Problem(
        await patch(app, id.u2!, key.mia, { systemFields: { emial: 'x' } }),
        400,
        'invalid-parameters',
      );
      assertV2Problem(await patch(app, id.u2!, key.mia, '{"systemFields":'), 400, 'invalid-request');
      const text = await app.inject({
        method: 'PATCH',
        url: `${V2}/${id.u2}`,
        headers: { 'content-type': 'text/plain', ...auth(key.mia) },
        payload: '{}',
      });
      assertV2Problem(text, 415, 'unsupported-media-type');
      // merge-patch+json is PATCH's alone.
      const created = await post(
        app,
        V2,
        key.mia,
        { systemFields: { fullName: 'X' } },
        { 'content-type': MERGE_PATCH },
      );
      assertV2Problem(created, 415, 'unsupported-media-type');
      assert.equal((await get(app, `${V2}/${id.u2}`, key.mia)).headers.etag, tag);
    });

    test('consent: coordinates only while the lead shares its location; withdrawing consent removes them', async () => {
      const shared = assertV2Ok(
        await patch(app, id.u3!, key.mia, {
          locationShared: true,
          systemFields: { location: { latitude: 52.5, longitude: 13.4 } },
        }),
      ) as V2LeadBody;
      assert.deepEqual(shared.data.systemFields.location, {
        label: 'Berlin',
        latitude: 52.5,
        longitude: 13.4,
      });
      const withdrawn = assertV2Ok(
        await patch(app, id.u3!, key.mia, { locationShared: false }),
      ) as V2LeadBody;
      assert.deepEqual(withdrawn.data.systemFields.location, {
        label: 'Berlin',
        latitude: null,
        longitude: null,
      });
    });

    test('duplicates: groups by normalised e-mail or phone within the key’s scope', async () => {
      const res = await post(app, `${V2}/duplicates`, key.mia, {});
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const groups = (
        JSON.parse(res.body) as {
          data: {
            groups: { matchedOn: { field: string; value: string }[]; leads: { legacyLeadId: string }[] }[];
          };
        }
      ).data.groups;
      // u1's e-mail changed above: u2 and u3 share the phone's digits.
      assert.deepEqual(
        groups.map((g) => g.leads.map((l) => l.legacyLeadId)),
        [['u2', 'u3']],
      );
      assert.deepEqual(groups[0]!.matchedOn, [{ field: 'phone', value: '49151123456' }]);
      // Put u1's e-mail back (another case): u1, u2, u3 are one group linked by e-mail and phone.
      assertV2Ok(await patch(app, id.u1!, key.mia, { systemFields: { email: 'ANNA@x.test' } }));
      const all = JSON.parse((await post(app, `${V2}/duplicates`, key.admin, { limit: 5 })).body) as {
        data: {
          groups: { matchedOn: { field: string; value: string }[]; leads: { legacyLeadId: string }[] }[];
        };
      };
      assert.deepEqual(
        all.data.groups.map((g) => g.leads.map((l) => l.legacyLeadId)),
        [['u1', 'u2', 'u3']],
      );
      assert.deepEqual(all.data.groups[0]!.matchedOn.map((m) => m.field).sort(), ['email', 'phone']);
      // The outsider's lead with the same e-mail is another team's: never in these groups.
      const theirs = JSON.parse((await post(app, `${V2}/duplicates`, key.outsider, {})).body) as {
        data: { groups: unknown[] };
      };
      assert.deepEqual(theirs.data.groups, []);
      assertV2Problem(await post(app, `${V2}/duplicates`, key.mia, { limit: 0 }), 400, 'invalid-parameters');
      const wrongMethod = await get(app, `${V2}/duplicates`, key.mia);
      assert.equal(wrongMethod.statusCode, 405);
      assert.equal(wrongMethod.headers.allow, 'POST');
    });

    test('merge: the survivor takes missing values, the merged lead answers 410 and leaves v1 and search', async () => {
      const tag = (await get(app, `${V2}/${id.u1}`, key.mia)).headers.etag as string;
      const res = await post(
        app,
        `${V2}/${id.u1}/merge`,
        key.mia,
        { mergeLeadIds: [id.u2, id.u3] },
        { 'if-match': tag },
      );
      const survivor = assertV2Ok(res) as V2LeadBody;
      assert.equal(res.headers.etag, `"${Number(tag.replaceAll('"', '')) + 1}"`);
      assert.equal(survivor.data.leadId, id.u1);
      assert.equal(
        survivor.data.systemFields.phone,
        '+49 151 123456',
        'taken from the first merged lead that has one',
      );
      assert.equal(survivor.data.systemFields.fullName, 'Anna Berg', 'its own values stay');
      for (const merged of [id.u2, id.u3]) {
        const gone = assertV2Problem(await get(app, `${V2}/${merged}`, key.mia), 410, 'lead-merged') as {
          mergedInto?: string;
        };
        assert.equal(gone.mergedInto, id.u1);
        assertV2Problem(
          await patch(app, merged!, key.mia, { systemFields: { note: 'x' } }),
          410,
          'lead-merged',
        );
      }
      const range = await app.inject({
        method: 'GET',
        url: '/api/pub/leads/getLeadsTimeRange?start=0',
        headers: auth(key.mia),
      });
      assert.equal(range.statusCode, 200, range.body);
      const v1Ids = (JSON.parse(range.body) as { id: string }[]).map((l) => l.id);
      assert.ok(v1Ids.includes('u1'));
      assert.ok(!v1Ids.includes('u2') && !v1Ids.includes('u3'), `merged leads left v1: ${v1Ids}`);
      const found = JSON.parse(
        (await post(app, `${V2}/search`, key.admin, { filters: { teamId: TEAM } })).body,
      ) as { data: { leads: { legacyLeadId: string }[] } };
      assert.deepEqual(found.data.leads.map((l) => l.legacyLeadId).sort(), ['u1', 'u4', 'u5']);
      // The duplicates are gone with them.
      const groups = JSON.parse((await post(app, `${V2}/duplicates`, key.mia, {})).body) as {
        data: { groups: unknown[] };
      };
      assert.deepEqual(groups.data.groups, []);
    });

    test('merge refusals: itself, another team’s lead, a lead the key may not change, bad bodies', async () => {
      const into = (leadId: string, body: unknown, k: string = key.admin) =>
        post(app, `${V2}/${leadId}/merge`, k, body);
      assert.equal(
        assertV2Problem(await into(id.u4!, { mergeLeadIds: [id.u4] }), 400, 'invalid-parameters')
          .invalid_params?.[0]?.name,
        '/mergeLeadIds/0',
      );
      assertV2Problem(await into(id.u4!, { mergeLeadIds: [id.o1] }), 404, 'not-found');
      assertV2Problem(await into(id.u4!, { mergeLeadIds: [] }), 400, 'invalid-parameters');
      assertV2Problem(await into(id.u4!, { mergeLeadIds: ['nope'] }), 400, 'invalid-parameters');
      assertV2Problem(await into(id.u4!, { mergeLeadIds: [id.u5], extra: 1 }), 400, 'invalid-parameters');
      assertV2Problem(await into(id.u1!, { mergeLeadIds: [id.u5] }, key.subAdmin), 403, 'forbidden');
      assertV2Problem(await into(id.u2!, { mergeLeadIds: [id.u5] }), 410, 'lead-merged');
      const wrongMethod = await get(app, `${V2}/${id.u4}/merge`, key.admin);
      assert.equal(wrongMethod.statusCode, 405);
      assert.equal(wrongMethod.headers.allow, 'POST');
      const onLead = await app.inject({ method: 'DELETE', url: `${V2}/${id.u4}`, headers: auth(key.admin) });
      assert.equal(onLead.statusCode, 405);
      assert.equal(onLead.headers.allow, 'GET, HEAD, PATCH');
    });
  });
}
