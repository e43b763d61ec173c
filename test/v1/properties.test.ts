import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { B, BERLIN, type Fixture, type LeadRec, Model, SUB } from './fixtures.js';
import { v1Harness } from './harness.js';
import { assertConsent, assertLeads, assertProblem, call, OP_NAMES, type OpName, V1 } from './http-assert.js';

const MAX = 8_640_000_000_000_000;
/** Problem type (its last path segment) per status, as the contract's errors name them. */
const PROBLEM_CODE: Record<number, string> = {
  400: 'invalid-parameters',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
};

for (const engine of enginesUnderTest()) {
  describe(`v1 properties (fast-check) (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h));

    /** What the contract says a caller gets: status, and on 200 the scope and the exact leads. */
    function oracle(
      memberId: number,
      op: OpName,
      p: { start: number; end: number | null; subteamId: number },
    ): { status: number[]; scope?: LeadRec[]; want?: LeadRec[] } {
      const m = fx.model;
      const caller = m.member(memberId);
      const isAdmin = caller.role === 'admin';
      const badRange = p.end !== null && p.end < p.start;
      const last = (leads: LeadRec[]) => {
        const l = Model.last(leads);
        return l === undefined ? [] : [l];
      };
      switch (op) {
        case 'getLastLead': {
          const scope = m.ownLeads(memberId);
          return { status: [200], scope, want: last(scope) };
        }
        case 'getLastLeadTeam': {
          if (!isAdmin) return { status: [403] };
          const scope = m.teamLeads(caller.teamId);
          return { status: [200], scope, want: last(scope) };
        }
        case 'getLastLeadSubTeam': {
          const s = m.subteams.get(p.subteamId);
          if (s === undefined || s.teamId !== caller.teamId) return { status: [404] };
          if (!isAdmin && !s.admins.includes(memberId)) return { status: [403] };
          const scope = m.subteamLeads(p.subteamId);
          return { status: [200], scope, want: last(scope) };
        }
        case 'getLeadsTimeRange': {
          if (badRange) return { status: [400] };
          const scope = m.ownLeads(memberId);
          return { status: [200], scope, want: Model.range(scope, p.start, p.end) };
        }
        case 'getLeadsTimeRangeForTeam': {
          // The contract does not order "not an admin" against "bad parameters": either answer.
          if (!isAdmin) return { status: badRange ? [400, 403] : [403] };
          if (badRange) return { status: [400] };
          const scope = m.teamLeads(caller.teamId);
          return { status: [200], scope, want: Model.range(scope, p.start, p.end) };
        }
      }
    }

    test('(1) any key × operation × parameters: never a lead outside the caller’s scope, never lat/long without consent', async () => {
      const members = [...fx.model.members.keys()];
      const epochs = [...new Set(fx.model.leads.flatMap((l) => [l.epoch, l.epoch + 1, l.epoch - 1]))].filter(
        (e) => e >= 0,
      );
      const epoch = fc.oneof(
        fc.constantFrom(0, MAX, ...epochs),
        fc.integer({ min: 0, max: B + 86_400_000 }),
        fc.integer({ min: 0, max: MAX }),
      );
      const subteamId = fc.constantFrom(...Object.values(SUB), 9999, 1);
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...members),
          fc.constantFrom(...OP_NAMES),
          epoch,
          fc.option(epoch, { nil: null }),
          subteamId,
          async (memberId, op, start, end, sid) => {
            const query =
              op === 'getLastLeadSubTeam'
                ? `?subTeamId=${sid}`
                : op.startsWith('getLeads')
                  ? `?start=${start}${end === null ? '' : `&end=${end}`}`
                  : '';
            const res = await call(app, `${V1}${op}${query}`, fx.key(memberId));
            const expected = oracle(memberId, op, { start, end, subteamId: sid });
            seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
            assert.ok(
              expected.status.includes(res.statusCode),
              `${op}${query} as ${memberId}: ${res.statusCode}`,
            );
            if (res.statusCode !== 200) {
              assertProblem(res, res.statusCode, PROBLEM_CODE[res.statusCode] ?? '?', fx.model);
              return;
            }
            const leads = assertLeads(res);
            const inScope = new Set((expected.scope ?? []).map((l) => `${l.userId}/${l.id}@${l.epoch}`));
            for (const l of leads) {
              assert.ok(
                inScope.has(`${String(l.userId)}/${String(l.id)}@${String(l.epoch)}`),
                `lead ${String(l.id)} in scope`,
              );
            }
            assertConsent(fx.model, leads);
            assert.deepEqual(
              leads,
              (expected.want ?? []).map((l) => fx.model.wire(l)),
            );
          },
        ),
        { numRuns: 400 },
      );
      // The runs reached every kind of answer, so the property is not vacuous.
      for (const status of [200, 400, 403, 404]) assert.ok((seen.get(status) ?? 0) > 0, `some ${status}`);
    });

    test('(2) malformed query strings: 400 problem+json or 200, never a 5xx', async () => {
      const key = fx.key(BERLIN.teamAdmin);
      const name = fc.oneof(
        fc.constantFrom(
          'start',
          'end',
          'subTeamId',
          'START',
          'x',
          '',
          '%',
          '%zz',
          '__proto__',
          'constructor',
          'start[]',
        ),
        fc.string({ maxLength: 6 }),
      );
      const value = fc.oneof(
        fc.constantFrom(
          '0',
          '2011',
          '1719835200000',
          '',
          '%',
          '%E0%A4%A',
          '%FF',
          '%00',
          '%C0%AF',
          '1e3',
          '-1',
          '+1',
          '%2B1',
        ),
        fc.constantFrom('1.5', '８', '8640000000000001', '0x10', 'NaN', '%2011', `${SUB.berlinField}`),
        fc.stringMatching(/^[0-9]{0,20}$/),
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        fc.string({ unit: 'binary', maxLength: 8 }),
      );
      const pair = fc.oneof(
        fc.tuple(name, value).map(([n, v]) => `${n}=${v}`),
        name,
        fc.tuple(name, value).map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`),
      );
      const raw = fc.oneof(
        fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&')),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
      );
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...OP_NAMES), raw, async (op, q) => {
          const res = await call(app, `${V1}${op}?${q}`, key);
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
          assert.ok(res.statusCode < 500, `${op}?${JSON.stringify(q)}: ${res.statusCode} ${res.body}`);
          if (res.statusCode === 200) {
            assertConsent(fx.model, assertLeads(res));
            return;
          }
          // A query naming a key-like parameter (or holding a key prefix) is refused as a leaked key (C2).
          const keyish = /key|token|authorization|llk_/i.test(safeDecode(q));
          const allowed = keyish ? [400, 401] : [400];
          // A well-formed subTeamId naming no subteam of the caller's team is a 404 (C2).
          if (op === 'getLastLeadSubTeam') allowed.push(404);
          assert.ok(allowed.includes(res.statusCode), `${op}?${JSON.stringify(q)}: ${res.statusCode}`);
          const p = assertProblem(res, res.statusCode, PROBLEM_CODE[res.statusCode] ?? '?', fx.model);
          if (res.statusCode === 400) {
            assert.ok(p.invalid_params !== undefined && p.invalid_params.length > 0);
            for (const ip of p.invalid_params)
              assert.ok(['start', 'end', 'subTeamId'].includes(ip.name), ip.name);
          }
        }),
        { numRuns: 500 },
      );
      for (const status of [200, 400]) assert.ok((seen.get(status) ?? 0) > 0, `some ${status}`);
    });
  });
}

/** Each name and value decoded as the server would, where it can be. */
function safeDecode(query: string): string {
  return query
    .split(/[&=]/)
    .map((part) => {
      try {
        return decodeURIComponent(part.replaceAll('+', ' '));
      } catch {
        return part;
      }
    })
    .join(' ');
}
