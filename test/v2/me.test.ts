import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKey } from '../../src/keys/create-key.js';
import { enginesUnderTest } from '../support/engines.js';
import { auth, makeApp } from '../support/helpers.js';
import { assertV2Ok, assertV2Problem, post, V2 } from './client.js';
import { buildSearchFixture, M, OTHER_TEAM, type SearchFixture, SUBTEAM, TEAM } from './search-fixture.js';

interface Me {
  key: {
    id: number;
    prefix: string;
    label: string | null;
    createdAt: string;
    expiresAt: string | null;
    legacyV1: boolean;
  };
  member: { id: number; email: string; name: string | null; role: string };
  team: { id: number; name: string };
  administeredSubteamIds: number[];
  scopes: string[];
}

for (const engine of enginesUnderTest()) {
  describe(`GET /api/pub/v2/me: the key's member, team, role and scopes (issue 22 §3) [${engine}]`, () => {
    let fx: SearchFixture;
    before(async () => {
      fx = await buildSearchFixture(engine);
    });
    after(() => fx.cleanup());

    const me = async (key: string, app = fx.app): Promise<Me> => {
      const res = await app.inject({ method: 'GET', url: '/api/pub/v2/me', headers: auth(key) });
      return (assertV2Ok(res) as { data: Me }).data;
    };

    it('a team admin: member, team, the whole team in scope, and v1 through its legacy grant', async () => {
      const d = await me(fx.key.admin);
      assert.deepEqual(d.member, { id: M.admin, email: 'admin@search.test', name: null, role: 'admin' });
      assert.deepEqual(d.team, { id: TEAM, name: 'Search Co' });
      assert.deepEqual(d.administeredSubteamIds, []);
      assert.deepEqual(d.scopes, ['leads:read:own', 'leads:read:team', 'leads:create', 'v1']);
      assert.equal(d.key.prefix, fx.key.admin.slice(0, 12));
      assert.equal(d.key.legacyV1, true);
      assert.ok(!JSON.stringify(d).includes(fx.key.admin.slice(12)), 'never the secret');
    });

    it('a subteam admin sees the subteams it administers; a member only its own leads', async () => {
      const sub = await me(fx.key.subAdmin);
      assert.equal(sub.member.role, 'member');
      assert.deepEqual(sub.administeredSubteamIds, [SUBTEAM]);
      assert.deepEqual(sub.scopes, ['leads:read:own', 'leads:read:subteams', 'leads:create', 'v1']);
      const mia = await me(fx.key.mia);
      assert.deepEqual(mia.scopes, ['leads:read:own', 'leads:create', 'v1']);
      const outsider = await me(fx.key.outsider);
      assert.equal(outsider.team.id, OTHER_TEAM);
    });

    it('a key made after the freeze without a grant has no v1 scope; after the sunset no key has', async () => {
      const made = await createKey(fx.store, {
        member: M.admin,
        label: 'crm',
        expiresAt: Date.parse('2099-01-01'),
      });
      const d = await me(made.key);
      assert.equal(d.key.id, made.id);
      assert.equal(d.key.label, 'crm');
      assert.equal(d.key.expiresAt, '2099-01-01T00:00:00.000Z');
      assert.equal(d.key.legacyV1, false);
      assert.ok(!d.scopes.includes('v1'));
      const sunset = await makeApp(fx.store, { LEADLINE_V1_SUNSET_AT: '2026-02-01T00:00:00Z' });
      try {
        assert.ok(!(await me(fx.key.admin, sunset)).scopes.includes('v1'));
      } finally {
        await sunset.close();
      }
    });

    it("the 403 for another team's teamId names the key's own team", async () => {
      const res = await post(fx.app, `${V2}/search`, fx.key.admin, { filters: { teamId: OTHER_TEAM } });
      const problem = assertV2Problem(res, 403, 'forbidden');
      assert.match(problem.detail, new RegExp(`this key's team is ${TEAM}\\b`));
      assert.match(problem.detail, new RegExp(`not ${OTHER_TEAM}\\b`));
    });
  });
}
