import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLeadline, LeadlineError } from '../../packages/client/src/index.js';
import { createLeadlineV1, type LeadlineV1 } from '../../packages/client/src/v1.js';
import { enginesUnderTest } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';
import {
  B,
  BERLIN,
  BERLIN_TIE,
  BERLIN_TOP,
  buildFixture,
  DAY,
  type Fixture,
  LA,
  PLAIN,
  SUB,
  W,
} from '../v1/fixtures.js';

/**
 * @leadline/client/v1 (issue 14): each of the five v1 operations, answered through v2 by the
 * client, returns what the server's v1 operation returns — same leads, same order, same members
 * and values — for every caller of the v1 fixture (members, subteam and team admins of four
 * teams), many ranges, and the errors v1 gives (403, 404; 400 as a RangeError before any call).
 * Against a listening server on each engine, with leads created through v2 among the imported
 * ones (ties at one millisecond, coordinates with and without consent).
 */

const HOUR = 3_600_000;
const RANGES: [start: number, end: number | undefined][] = [
  [0, undefined],
  [0, 1],
  [B, B + HOUR],
  [BERLIN_TIE, BERLIN_TIE + 1],
  [BERLIN_TIE, BERLIN_TIE],
  [BERLIN_TOP, undefined],
  [W, B],
  [B - 3 * DAY, B - 2 * DAY],
  [Date.parse('2100-01-01T00:00:00Z'), undefined],
  [0, Date.parse('9999-12-31T23:59:59.999Z')],
  [0, 8_640_000_000_000_000],
  [8_640_000_000_000_000, undefined],
];

/** Leads created through v2 before the comparison: a tie, consent with odd decimals, none. */
const CREATED = [
  {
    member: BERLIN.member,
    body: {
      leadSource: 'QR_CODE_SCAN' as const,
      captureDatetime: new Date(BERLIN_TIE).toISOString(),
      locationShared: true,
      systemFields: {
        fullName: 'Quinn Tie',
        location: { label: 'Hall 3', latitude: 52.5, longitude: -0.125 },
      },
    },
  },
  {
    member: 1014,
    body: {
      leadSource: 'BUSINESS_CARD_SCAN' as const,
      captureDatetime: new Date(B - 3 * DAY).toISOString(),
      systemFields: {
        fullName: 'Carla Card',
        location: { label: 'Munich', latitude: 48.1, longitude: 11.5 },
      },
    },
  },
];

/** An answer: its status, and its leads when it is a 200. */
type Outcome = { status: number; leads: unknown[] | null };

for (const engine of enginesUnderTest()) {
  describe(`@leadline/client/v1 returns what v1 returns (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    let base: string;
    const shims = new Map<number, LeadlineV1>();
    const shim = (member: number): LeadlineV1 => {
      let s = shims.get(member);
      if (s === undefined) {
        s = createLeadlineV1({ baseUrl: base, apiKey: fx.key(member), retry: { retries: 0 } });
        shims.set(member, s);
      }
      return s;
    };

    before(async () => {
      fx = await buildFixture(engine);
      app = await makeApp(fx.store);
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      for (const c of CREATED) {
        await createLeadline({ baseUrl: base, apiKey: fx.key(c.member) }).leads.create(c.body);
      }
    });
    after(async () => {
      await app?.close();
      await fx?.cleanup();
    });

    /** The server's v1 answer. */
    async function v1(member: number, path: string): Promise<Outcome> {
      const res = await fetch(`${base}/api/pub/leads/${path}`, {
        headers: { authorization: `Bearer ${fx.key(member)}` },
      });
      const body = (await res.json()) as unknown;
      return { status: res.status, leads: res.status === 200 ? (body as unknown[]) : null };
    }
    /** The client's answer in the same terms: a LeadlineError gives its status. */
    async function client(call: () => Promise<unknown[]>): Promise<Outcome> {
      try {
        return { status: 200, leads: await call() };
      } catch (err) {
        assert.ok(err instanceof LeadlineError, String(err));
        return { status: err.status, leads: null };
      }
    }
    async function same(label: string, member: number, path: string, call: () => Promise<unknown[]>) {
      const [want, got] = [await v1(member, path), await client(call)];
      assert.equal(got.status, want.status, `${label}: status`);
      assert.deepEqual(got.leads, want.leads, `${label}: same leads, order and members`);
      return want.leads?.length ?? -1;
    }

    const members = () => [...fx.model.members.keys()];
    const q = (start: number, end: number | undefined) =>
      `start=${start}${end === undefined ? '' : `&end=${end}`}`;

    test('getLastLead and getLeadsTimeRange, for every member and range', async () => {
      let found = 0;
      for (const m of members()) {
        if ((await same(`getLastLead as ${m}`, m, 'getLastLead', () => shim(m).getLastLead())) > 0) found++;
        for (const [start, end] of RANGES) {
          const label = `getLeadsTimeRange as ${m} ${q(start, end)}`;
          const path = `getLeadsTimeRange?${q(start, end)}`;
          if ((await same(label, m, path, () => shim(m).getLeadsTimeRange(start, end))) > 1) found++;
        }
      }
      assert.ok(found > 20, `answers with leads are among the cases (${found})`);
    });

    test('getLastLeadTeam and getLeadsTimeRangeForTeam: team admins get leads, others 403 on both', async () => {
      const statuses = new Set<number>();
      for (const m of members()) {
        await same(`getLastLeadTeam as ${m}`, m, 'getLastLeadTeam', () => shim(m).getLastLeadTeam());
        for (const [start, end] of RANGES) {
          const path = `getLeadsTimeRangeForTeam?${q(start, end)}`;
          const n = await same(`team range as ${m} ${q(start, end)}`, m, path, () =>
            shim(m).getLeadsTimeRangeForTeam(start, end),
          );
          statuses.add(n < 0 ? 403 : 200);
        }
      }
      assert.deepEqual([...statuses].sort(), [200, 403]);
    });

    test('getLastLeadSubTeam: admins of the subteam, team admins, 403 for others, 404 for an unknown or foreign id', async () => {
      const ids = [...Object.values(SUB), 9999];
      const callers = [
        BERLIN.teamAdmin,
        BERLIN.subAdmin,
        BERLIN.member,
        LA.teamAdmin,
        LA.subAdmin,
        PLAIN.subAdmin,
        1015,
      ];
      const statuses = new Set<number>();
      for (const m of callers) {
        for (const id of ids) {
          const label = `getLastLeadSubTeam?subTeamId=${id} as ${m}`;
          const want = await v1(m, `getLastLeadSubTeam?subTeamId=${id}`);
          statuses.add(want.status);
          await same(label, m, `getLastLeadSubTeam?subTeamId=${id}`, () => shim(m).getLastLeadSubTeam(id));
        }
      }
      assert.deepEqual([...statuses].sort(), [200, 403, 404]);
    });

    test('arguments v1 answers 400 to throw a RangeError and make no call', async () => {
      let calls = 0;
      const counting = createLeadlineV1({
        baseUrl: base,
        apiKey: fx.key(BERLIN.teamAdmin),
        fetch: (input, init) => {
          calls++;
          return fetch(input, init);
        },
      });
      const bad: [v1Path: string, call: () => Promise<unknown>][] = [
        ['getLeadsTimeRange?start=-1', () => counting.getLeadsTimeRange(-1)],
        ['getLeadsTimeRangeForTeam?start=1.5', () => counting.getLeadsTimeRangeForTeam(1.5)],
        ['getLeadsTimeRange?start=8640000000000001', () => counting.getLeadsTimeRange(8_640_000_000_000_001)],
        ['getLeadsTimeRange?start=10&end=9', () => counting.getLeadsTimeRange(10, 9)],
        ['getLastLeadSubTeam?subTeamId=0', () => counting.getLastLeadSubTeam(0)],
      ];
      for (const [path, call] of bad) {
        await assert.rejects(call(), RangeError, path);
        assert.equal((await v1(BERLIN.teamAdmin, path)).status, 400, `${path}: v1 says 400`);
      }
      assert.equal(calls, 0);
    });
  });
}
