import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../src/keys/create-key.js';
import { generateKey, isWellFormedKey } from '../../src/keys/token.js';
import { enginesUnderTest } from '../support/engines.js';
import { BERLIN, type Fixture, LA, PLAIN, SUB } from './fixtures.js';
import { v1Harness, withOwnFixture } from './harness.js';
import {
  assertLeads,
  assertProblem,
  assertRateLimitFields,
  call,
  OP_NAMES,
  type OpName,
  V1,
} from './http-assert.js';

/** A valid query per operation, for a Berlin caller allowed to run it. */
const VALID_QUERY: Record<OpName, string> = {
  getLastLead: '',
  getLastLeadTeam: '',
  getLastLeadSubTeam: `?subTeamId=${SUB.berlinField}`,
  getLeadsTimeRange: '?start=0',
  getLeadsTimeRangeForTeam: '?start=0',
};
const TEAM_OPS = new Set<OpName>(['getLastLeadTeam', 'getLeadsTimeRangeForTeam']);

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A key of the documented shape (prefix, base62, CRC32 checksum) that starts with `prefix`. */
function wellFormedKeyStartingWith(prefix: string): string {
  let body = prefix;
  while (body.length < 34) body += ALPHABET[Math.floor(Math.random() * 62)];
  let sum = '';
  let v = crc32(body);
  for (let i = 0; i < 6; i++) {
    sum = ALPHABET[v % 62] + sum;
    v = Math.floor(v / 62);
  }
  return body + sum;
}

for (const engine of enginesUnderTest()) {
  describe(`v1 security: one suite for all five operations (C2, C5, C6) (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    let adminKey: string;
    v1Harness(engine, (h) => {
      ({ fx, app } = h);
      adminKey = fx.key(BERLIN.teamAdmin);
    });

    for (const op of OP_NAMES) {
      describe(op, () => {
        const path = `${V1}${op}${VALID_QUERY[op]}`;

        test('precondition: the Berlin team admin key is accepted with the valid query', async () => {
          assertLeads(await call(app, path, adminKey));
        });

        describe('C2: missing key → 401 with WWW-Authenticate, problem+json, deprecation signals', () => {
          test('no Authorization header', async () => {
            assertProblem(await call(app, path), 401, 'unauthorized', fx.model);
          });
          test('an empty Authorization header', async () => {
            const res = await call(app, path, undefined, { headers: { authorization: '' } });
            assertProblem(res, 401, 'unauthorized', fx.model);
          });
        });

        describe('C2: malformed Authorization header → 401', () => {
          const variants: [string, (key: string) => string][] = [
            ['scheme only', () => 'Bearer'],
            ['scheme and blank', () => 'Bearer   '],
            ['Basic credentials', () => 'Basic dXNlcjpwYXNz'],
            ['not a key', () => 'Bearer not-a-key'],
            ['two keys', (k) => `Bearer ${k} ${k}`],
            ['another scheme', (k) => `Token ${k}`],
            ['quoted key', (k) => `Bearer "${k}"`],
            ['truncated key', (k) => `Bearer ${k.slice(0, -1)}`],
            ['key with a trailing character', (k) => `Bearer ${k}x`],
            ['key with the prefix missing', (k) => `Bearer ${k.slice(4)}`],
          ];
          for (const [label, header] of variants) {
            test(label, async () => {
              const res = await call(app, path, undefined, { headers: { authorization: header(adminKey) } });
              assertProblem(res, 401, 'unauthorized', fx.model);
            });
          }
        });

        describe('C2: unknown key → 401', () => {
          test('a well-formed key the store never issued', async () => {
            const stranger = generateKey();
            assert.ok(isWellFormedKey(stranger));
            assertProblem(await call(app, path, stranger), 401, 'unauthorized', fx.model);
          });
          test("a well-formed key sharing a real key's display prefix", async () => {
            const lookalike = wellFormedKeyStartingWith(adminKey.slice(0, 12));
            assert.ok(isWellFormedKey(lookalike), 'the look-alike passes the offline check');
            assert.notEqual(lookalike, adminKey);
            assertProblem(await call(app, path, lookalike), 401, 'unauthorized', fx.model);
          });
        });

        test('C2: a key with a bad checksum → 401', async () => {
          const last = adminKey.at(-1) === 'A' ? 'B' : 'A';
          const tampered = `${adminKey.slice(0, -1)}${last}`;
          assert.equal(isWellFormedKey(tampered), false);
          assertProblem(await call(app, path, tampered), 401, 'unauthorized', fx.model);
        });

        test('C2: a revoked key → 401 from the next request on', async () => {
          const created = await createKey(fx.store, { member: BERLIN.teamAdmin, legacyV1: true });
          assertLeads(await call(app, path, created.key));
          assert.equal(await fx.store.keys.revoke(created.id, Date.now()), true);
          assertProblem(await call(app, path, created.key), 401, 'unauthorized', fx.model);
        });

        test('C2: an expired key → 401 (an unexpired one works)', async () => {
          const now = Date.now();
          const expired = await createKey(
            fx.store,
            { member: BERLIN.teamAdmin, legacyV1: true, expiresAt: now - 1000 },
            now - 60_000,
          );
          assertProblem(await call(app, path, expired.key), 401, 'unauthorized', fx.model);
          const fresh = await createKey(fx.store, {
            member: BERLIN.teamAdmin,
            legacyV1: true,
            expiresAt: now + 3_600_000,
          });
          assertLeads(await call(app, path, fresh.key));
        });

        describe('C2: keys in the query string are never accepted → 401', () => {
          const sep = VALID_QUERY[op] === '' ? '?' : '&';
          for (const name of ['key', 'apikey', 'api_key', 'token', 'access_token', 'Authorization']) {
            test(`?${name}=<key> without a header`, async () => {
              const res = await call(app, `${path}${sep}${name}=${adminKey}`);
              assertProblem(res, 401, 'unauthorized', fx.model);
              assert.ok(!res.body.includes(adminKey), 'the key is not echoed');
            });
            test(`?${name}=<key> with a valid header`, async () => {
              const res = await call(app, `${path}${sep}${name}=${adminKey}`, adminKey);
              assertProblem(res, 401, 'unauthorized', fx.model);
              assert.ok(!res.body.includes(adminKey), 'the key is not echoed');
            });
          }
          test('the key as a bare parameter name (?<key>, ?<key>=1), with a valid header', async () => {
            for (const q of [adminKey, `${adminKey}=1`]) {
              const res = await call(app, `${path}${sep}${q}`, adminKey);
              assertProblem(res, 401, 'unauthorized', fx.model);
              assert.ok(!res.body.includes(adminKey), 'the key is not echoed');
            }
          });
          test('a key as the value of an innocuous parameter, with a valid header', async () => {
            const res = await call(
              app,
              `${path}${sep}q=${encodeURIComponent(`Bearer ${adminKey}`)}`,
              adminKey,
            );
            assertProblem(res, 401, 'unauthorized', fx.model);
          });
        });

        describe('C2: roles', () => {
          if (TEAM_OPS.has(op)) {
            for (const team of [BERLIN, LA, PLAIN]) {
              for (const role of ['subAdmin', 'member'] as const) {
                test(`team ${team.id} ${role} → 403 (team admins only)`, async () => {
                  const res = await call(app, path, fx.key(team[role]));
                  assertProblem(res, 403, 'forbidden', fx.model);
                  assertRateLimitFields(res);
                });
              }
            }
          } else if (op === 'getLastLeadSubTeam') {
            const cases: [string, number, number][] = [
              ['a member (not admin) of the subteam', BERLIN.member, SUB.berlinField],
              ['a member (not admin) of the subteam', LA.member, SUB.laWest],
              ['a member of the subteam who administers another one', BERLIN.subAdmin, SUB.berlinInside],
              ['a team member outside the subteam', PLAIN.member, SUB.plainQuiet],
            ];
            for (const [label, memberId, subteamId] of cases) {
              test(`${label} (${memberId} on ${subteamId}) → 403`, async () => {
                const res = await call(app, `${V1}${op}?subTeamId=${subteamId}`, fx.key(memberId));
                assertProblem(res, 403, 'forbidden', fx.model);
                assertRateLimitFields(res);
              });
            }
          } else {
            for (const team of [BERLIN, LA, PLAIN]) {
              for (const role of ['teamAdmin', 'subAdmin', 'member'] as const) {
                test(`team ${team.id} ${role} → 200 (any key)`, async () => {
                  assertLeads(await call(app, path, fx.key(team[role])));
                });
              }
            }
          }
        });

        if (op === 'getLastLeadSubTeam') {
          describe('C2: another team’s subteam and an unknown subteam → the same 404', () => {
            const roles = [BERLIN.teamAdmin, BERLIN.subAdmin, BERLIN.member];
            for (const memberId of roles) {
              test(`caller ${memberId}: foreign ${SUB.laWest} and unknown 9999 answer alike`, async () => {
                const key = fx.key(memberId);
                const foreign = await call(app, `${V1}${op}?subTeamId=${SUB.laWest}`, key);
                const unknown = await call(app, `${V1}${op}?subTeamId=9999`, key);
                const huge = await call(app, `${V1}${op}?subTeamId=99999999999999999999`, key);
                const bodies = [foreign, unknown, huge].map((res) => {
                  const p = assertProblem(res, 404, 'not-found', fx.model);
                  assertRateLimitFields(res);
                  const { instance: _instance, ...rest } = p;
                  // The detail may echo the id the caller sent; nothing else may differ.
                  return JSON.stringify(rest).replace(/\d{4,}/g, '<id>');
                });
                assert.equal(bodies[1], bodies[0]);
                assert.equal(bodies[2], bodies[0]);
                assert.notEqual(foreign.headers['x-request-id'], unknown.headers['x-request-id']);
              });
            }
            test('the same id, foreign in one store and unknown in another: identical but for instance', async () => {
              await withOwnFixture(
                engine,
                async (without, otherApp) => {
                  const url = `${V1}${op}?subTeamId=${SUB.laWest}`;
                  const foreign = await call(app, url, fx.key(BERLIN.teamAdmin));
                  const unknown = await call(otherApp, url, without.key(BERLIN.teamAdmin));
                  const a = assertProblem(foreign, 404, 'not-found', fx.model);
                  const b = assertProblem(unknown, 404, 'not-found', without.model);
                  assert.notEqual(a.instance, b.instance);
                  assert.equal(
                    foreign.body.replace(a.instance, '<instance>'),
                    unknown.body.replace(b.instance, '<instance>'),
                  );
                },
                fx.records.filter((r) => !(r.type === 'subteam' && r.id === SUB.laWest)),
              );
            });
          });
        }
      });
    }
  });
}
