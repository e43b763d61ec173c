import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V2Lead } from '../../src/schemas/v2.js';
import { enginesUnderTest } from '../support/engines.js';
import { keyFor, load, makeApp } from '../support/helpers.js';
import { assertInvalidParams, call } from '../v1/http-assert.js';
import { assertV2Ok, assertV2Problem, get, post, search, V2 } from './client.js';
import { buildSearchFixture, M, type SearchFixture } from './search-fixture.js';

/** Every lead of team 501, by search (the change feed may lag on PostgreSQL; search does not). */
const everything = {
  scope: { teamId: 501 },
  start: null,
  end: null,
  sources: null,
  hasEmail: null,
  text: [],
};

/** ISO-8601 of `hours` from now. */
const ahead = (hours: number): string => new Date(Date.now() + hours * 3_600_000).toISOString();

const connection = {
  leadSource: 'PROFILE_CONNECTION',
  captureDatetime: '2026-05-04T10:20:30.456+02:00',
  systemFields: {
    firstName: 'Zoë',
    lastName: 'van Dijk',
    email: 'zoe@dijk.test',
    phone: '31612345678',
    companyName: 'Dijk BV',
    twitterUrl: 'https://x.test/zoe',
    location: { label: 'Utrecht', latitude: 52.09, longitude: 5.12 },
  },
};

for (const engine of enginesUnderTest()) {
  describe(`v2 create lead [${engine}]`, () => {
    let fx: SearchFixture;
    before(async () => {
      fx = await buildSearchFixture(engine);
    });
    after(async () => fx.cleanup());

    const create = async (key: string, body: unknown, headers: Record<string, string> = {}) =>
      post(fx.app, V2, key, body, headers);

    it('creates a connection lead for the caller, visible at once to v1 and v2 reads', async () => {
      const res = await create(fx.key.max, { ...connection, locationShared: true });
      const lead = assertV2Ok(res, 201).data as V2Lead;
      assert.equal(res.headers.location, `${V2}/${lead.leadId}`);
      assert.match(lead.legacyLeadId, /^[0-9]+$/);
      assert.deepEqual(lead.assignedMembers, [M.max]);
      assert.equal(lead.leadSource, 'PROFILE_CONNECTION');
      assert.equal(lead.captureDatetime, '2026-05-04T08:20:30.456Z');
      assert.equal(lead.systemFields.fullName, 'Zoë van Dijk');
      assert.equal(lead.systemFields.firstName, 'Zoë');
      assert.equal(lead.systemFields.lastName, 'van Dijk');
      assert.deepEqual(lead.systemFields.location, { label: 'Utrecht', latitude: 52.09, longitude: 5.12 });

      const v1 = await call(fx.app, '/api/pub/leads/getLastLead', fx.key.max);
      assert.equal(v1.statusCode, 200);
      const [w] = JSON.parse(v1.body) as Record<string, unknown>[];
      assert.deepEqual(w, {
        id: lead.legacyLeadId,
        epoch: Date.parse('2026-05-04T08:20:30.456Z'),
        time: '2026-05-04 08:20:30',
        userId: M.max,
        userEmail: 'max@search.test',
        userPid: 'p4',
        lat: '52.09',
        long: '5.12',
        name: 'Zoë van Dijk',
        company: 'Dijk BV',
        email: 'zoe@dijk.test',
        number: '31612345678',
        fullContact: { twitter: 'https://x.test/zoe' },
        location: 'Utrecht',
        isManual: false,
        isLead: true,
        apptoapp: false,
      });
      assertV2Ok(await get(fx.app, `${V2}/${lead.leadId}`, fx.key.max));
      const found = await search(fx.app, fx.key.admin, {
        filters: { teamId: 501 },
        query: [{ fields: ['lastName'], value: 'van dyk', match: 'FUZZY' }],
      });
      assert.deepEqual(
        found.leads.map((l) => l.leadId),
        [lead.leadId],
      );
    });

    it('a card scan is a v1 scan; other sources set the v1 flags they stand for', async () => {
      const scan = assertV2Ok(
        await create(fx.key.mia, {
          leadSource: 'BUSINESS_CARD_SCAN',
          systemFields: { fullName: 'Card Person', businessCardImageUrl: 'card-9.jpg' },
        }),
        201,
      ).data as V2Lead;
      assert.equal(scan.systemFields.businessCardImageUrl, 'card-9.jpg');
      assert.deepEqual(
        { isScan: scan.v1Fields.isScan, isRoll: scan.v1Fields.isRoll, isManual: scan.v1Fields.isManual },
        { isScan: true, isRoll: false, isManual: false },
      );
      for (const [source, flags] of [
        ['APP_TO_APP', { isLead: true, apptoapp: true, isManual: false }],
        ['MANUAL', { isLead: true, apptoapp: false, isManual: true }],
        ['QR_CODE_SCAN', { isLead: true, apptoapp: false, isManual: false }],
      ] as const) {
        const l = assertV2Ok(
          await create(fx.key.mia, { leadSource: source, systemFields: { email: `${source}@x.test` } }),
          201,
        ).data as V2Lead;
        assert.equal(l.leadSource, source);
        for (const [k, v] of Object.entries(flags)) assert.equal(l.v1Fields[k], v, `${source} ${k}`);
      }
    });

    it('keeps coordinates only with consent', async () => {
      const l = assertV2Ok(await create(fx.key.admin, connection), 201).data as V2Lead;
      assert.deepEqual(l.systemFields.location, { label: 'Utrecht', latitude: null, longitude: null });
      const stored = await fx.store.leads.lastOfMember(501, M.admin);
      assert.equal(stored?.uuid, l.leadId);
      assert.equal(stored?.lat, null, 'not stored at all');
      assert.equal(stored?.long, null);
      const v1 = await call(fx.app, '/api/pub/leads/getLastLead', fx.key.admin);
      assert.doesNotMatch(v1.body, /"lat"|"long"|52\.09/);
    });

    it('Idempotency-Key: the same key and body create one lead; another body is a 409', async () => {
      const body = { leadSource: 'MANUAL', systemFields: { fullName: 'Once Only' } };
      const headers = { 'idempotency-key': 'order-7f3a' };
      const first = await create(fx.key.subAdmin, body, headers);
      const firstLead = assertV2Ok(first, 201).data as V2Lead;
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await create(
        fx.key.subAdmin,
        { systemFields: { fullName: 'Once Only' }, leadSource: 'MANUAL' },
        headers,
      );
      assert.equal((assertV2Ok(again, 201).data as V2Lead).leadId, firstLead.leadId);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assertV2Problem(
        await create(fx.key.subAdmin, { ...body, systemFields: { fullName: 'Other' } }, headers),
        409,
        'idempotency-conflict',
      );
      const mine = await search(fx.app, fx.key.subAdmin, {
        filters: { assignedMemberIds: [M.subAdmin] },
        query: [{ fields: ['fullName'], value: 'Once Only', match: 'EXACT' }],
      });
      assert.equal(mine.leads.length, 1, 'stored once');
      // Keys are per API key: another key may use the same Idempotency-Key for its own lead.
      const otherKey = await keyFor(fx.store, M.subAdmin);
      const other = assertV2Ok(await create(otherKey, body, headers), 201).data as V2Lead;
      assert.notEqual(other.leadId, firstLead.leadId);
    });

    it('concurrent retries with one Idempotency-Key store one lead', async () => {
      const body = { leadSource: 'PROFILE_CONNECTION', systemFields: { fullName: 'Raced Retry' } };
      const results = await Promise.all(
        Array.from({ length: 6 }, () => create(fx.key.mia, body, { 'idempotency-key': 'race-1' })),
      );
      const ids = new Set(results.map((r) => (assertV2Ok(r, 201).data as V2Lead).leadId));
      assert.equal(ids.size, 1);
    });

    const bad: [string, unknown, string[]][] = [
      ['no contact at all', { leadSource: 'MANUAL', systemFields: { note: 'who?' } }, ['/systemFields']],
      [
        'an unknown field',
        { leadSource: 'MANUAL', systemFields: { fullName: 'A', nickname: 'B' } },
        ['/systemFields/nickname'],
      ],
      ['an unknown source', { leadSource: 'FAX', systemFields: { fullName: 'A' } }, ['/leadSource']],
      [
        'a latitude off the globe',
        { leadSource: 'MANUAL', systemFields: { fullName: 'A', location: { latitude: 91 } } },
        ['/systemFields/location/latitude'],
      ],
      [
        'a date that does not exist',
        { leadSource: 'MANUAL', captureDatetime: '2026-02-29T10:00:00Z', systemFields: { fullName: 'A' } },
        ['/captureDatetime'],
      ],
      ['no systemFields', { leadSource: 'MANUAL' }, ['/systemFields']],
      // R11: a capture time beyond the clock-skew tolerance (default 24 h) would pin "last lead".
      [
        'a capture time in year 9999, at the largest offset',
        {
          leadSource: 'MANUAL',
          captureDatetime: '9999-12-31T23:59:59.999999999-23:59',
          systemFields: { fullName: 'A' },
        },
        ['/captureDatetime'],
      ],
      [
        'a capture time 25 h ahead',
        { leadSource: 'MANUAL', captureDatetime: ahead(25), systemFields: { fullName: 'A' } },
        ['/captureDatetime'],
      ],
      // R12: text PostgreSQL cannot hold (NUL) or UTF-8 cannot carry (a lone surrogate).
      [
        'a NUL in a note',
        { leadSource: 'MANUAL', systemFields: { fullName: 'A', note: 'a\u0000b' } },
        ['/systemFields/note'],
      ],
      [
        'a NUL in userPid',
        { leadSource: 'MANUAL', userPid: 'p\u0000', systemFields: { fullName: 'A' } },
        ['/userPid'],
      ],
      [
        'a lone high surrogate in a first name',
        { leadSource: 'MANUAL', systemFields: { firstName: 'Zo\ud800' } },
        ['/systemFields/firstName'],
      ],
      [
        'a lone low surrogate in a location label',
        { leadSource: 'MANUAL', systemFields: { fullName: 'A', location: { label: '\udc00x' } } },
        ['/systemFields/location/label'],
      ],
    ];
    for (const [what, body, names] of bad) {
      it(`400 for ${what}, and nothing stored`, async () => {
        const count = async () => (await fx.store.leads.search(everything, 'DESC', null, 10_000)).length;
        const before = await count();
        const p = assertV2Problem(await create(fx.key.mia, body), 400, 'invalid-parameters');
        assertInvalidParams(p, names);
        assert.equal(await count(), before);
      });
    }

    it('every malformed JSON body is a 400 that says so, not "could not be read" (issue 36)', async () => {
      for (const body of ['not json', '{"leadSource":', '{"leadSource":"MANUAL",}', '']) {
        const p = assertV2Problem(await create(fx.key.mia, body), 400, 'invalid-request');
        assert.equal(p.detail, 'The request body is not valid JSON.', JSON.stringify(body));
      }
    });

    it('a malformed Idempotency-Key is a 400; a body over 64 KiB a 413', async () => {
      const body = { leadSource: 'MANUAL', systemFields: { fullName: 'A' } };
      const p = assertV2Problem(
        await create(fx.key.mia, body, { 'idempotency-key': 'has space' }),
        400,
        'invalid-parameters',
      );
      assertInvalidParams(p, ['Idempotency-Key']);
      const huge = { leadSource: 'MANUAL', systemFields: { fullName: 'A', note: 'x'.repeat(70_000) } };
      const tooBig = assertV2Problem(await create(fx.key.mia, huge), 413, 'payload-too-large');
      // The detail names the limit (issue 37).
      assert.equal(tooBig.detail, 'The request body is larger than the limit of 65,536 bytes (64 KiB).');
    });

    it('R11: the reason names the tolerance and its setting; within it a lead is stored', async () => {
      const body = { leadSource: 'MANUAL', captureDatetime: ahead(25), systemFields: { fullName: 'Skew' } };
      const p = assertV2Problem(await create(fx.key.mia, body), 400, 'invalid-parameters');
      assert.deepEqual(p.invalid_params, [
        {
          name: '/captureDatetime',
          reason: 'lies more than 24 h in the future (LEADLINE_CAPTURE_TOLERANCE_SECONDS)',
        },
      ]);
      assertV2Ok(await create(fx.key.mia, { ...body, captureDatetime: ahead(23) }), 201);
      const strict = await makeApp(fx.store, { LEADLINE_CAPTURE_TOLERANCE_SECONDS: '60' });
      try {
        const late = assertV2Problem(
          await post(strict, V2, fx.key.mia, { ...body, captureDatetime: ahead(0.1) }),
          400,
          'invalid-parameters',
        );
        assert.match(late.invalid_params?.[0]?.reason ?? '', /more than 1 min in the future/);
        assertV2Ok(await post(strict, V2, fx.key.mia, { ...body, captureDatetime: ahead(0) }), 201);
      } finally {
        await strict.close();
      }
    });

    it('R11: every capture time the service writes is one it reads — created and imported, at both ends', async () => {
      const latest = Date.now() + 23 * 3_600_000;
      const made = [
        await create(fx.key.max, {
          leadSource: 'MANUAL',
          captureDatetime: '1970-01-01T00:00:00Z',
          systemFields: { fullName: 'Trip A' },
        }),
        await create(fx.key.max, {
          leadSource: 'MANUAL',
          captureDatetime: new Date(latest).toISOString(),
          systemFields: { fullName: 'Trip B' },
        }),
      ].map((r) => (assertV2Ok(r, 201).data as V2Lead).captureDatetime);
      await load(fx.store, [
        { type: 'lead', userId: M.max, id: 'trip-c', epoch: 0, isLead: true, name: 'Trip C' },
        { type: 'lead', userId: M.max, id: 'trip-d', epoch: latest, isLead: true, name: 'Trip D' },
      ]);
      const found = await search(fx.app, fx.key.admin, {
        filters: { assignedMemberIds: [M.max] },
        query: [{ fields: ['fullName'], value: 'trip', match: 'FUZZY' }],
      });
      const times = [
        ...made,
        ...found.leads
          .filter((l) => /^Trip [CD]$/.test(l.systemFields.fullName ?? ''))
          .map((l) => l.captureDatetime),
      ];
      assert.deepEqual(times.sort(), [
        '1970-01-01T00:00:00.000Z',
        '1970-01-01T00:00:00.000Z',
        new Date(latest).toISOString(),
        new Date(latest).toISOString(),
      ]);
      for (const t of times) {
        assertV2Ok(
          await create(fx.key.max, {
            leadSource: 'MANUAL',
            captureDatetime: t,
            systemFields: { fullName: 'Again' },
          }),
          201,
        );
        assertV2Ok(
          await post(fx.app, `${V2}/search`, fx.key.max, {
            filters: { assignedMemberIds: [M.max], startTime: t, endTime: t },
          }),
        );
      }
    });

    it('R12: other control characters and paired surrogates are stored verbatim, alike on both engines', async () => {
      const note = 'tab\tnew\nline\r\u0001\u001f\u007f \ud83d\ude00';
      const lead = assertV2Ok(
        await create(fx.key.subAdmin, {
          leadSource: 'MANUAL',
          systemFields: { fullName: 'Ctl \u0007', note },
        }),
        201,
      ).data as V2Lead;
      assert.equal(lead.systemFields.note, note);
      const again = assertV2Ok(await get(fx.app, `${V2}/${lead.leadId}`, fx.key.subAdmin)).data as V2Lead;
      assert.equal(again.systemFields.note, note);
      assert.equal(again.systemFields.fullName, 'Ctl \u0007');
      const v1 = await call(fx.app, '/api/pub/leads/getLastLead', fx.key.subAdmin);
      assert.equal((JSON.parse(v1.body) as { note?: string }[])[0]?.note, note);
    });
  });
}
