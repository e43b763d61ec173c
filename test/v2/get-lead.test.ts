import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enginesUnderTest } from '../support/engines.js';
import { assertV2Ok, assertV2Problem, get, search, V2 } from './client.js';
import { buildSearchFixture, M, type SearchFixture, TEAM } from './search-fixture.js';

for (const engine of enginesUnderTest()) {
  describe(`v2 get lead [${engine}]`, () => {
    let fx: SearchFixture;
    const uuid: Record<string, string> = {};
    before(async () => {
      fx = await buildSearchFixture(engine);
      for (const l of (await search(fx.app, fx.key.admin, { filters: { teamId: TEAM } })).leads) {
        uuid[l.legacyLeadId] = l.leadId;
      }
      const other = await search(fx.app, fx.key.outsider, { filters: { teamId: 502 } });
      for (const l of other.leads) uuid[l.legacyLeadId] = l.leadId;
    });
    after(async () => fx.cleanup());

    it('answers {"data": lead}, the same lead search returns', async () => {
      const res = await get(fx.app, `${V2}/${uuid.a1}`, fx.key.admin);
      const body = assertV2Ok(res) as {
        data: { leadId: string; legacyLeadId: string; systemFields: { fullName: string } };
      };
      assert.equal(body.data.leadId, uuid.a1);
      assert.equal(body.data.legacyLeadId, 'a1');
      assert.equal(body.data.systemFields.fullName, 'John Smith');
      const upper = await get(fx.app, `${V2}/${uuid.a1?.toUpperCase()}`, fx.key.admin);
      assert.equal((assertV2Ok(upper) as { data: { leadId: string } }).data.leadId, uuid.a1);
    });

    it('follows the roles: own leads, administered subteams, the whole team for admins', async () => {
      assertV2Ok(await get(fx.app, `${V2}/${uuid.a1}`, fx.key.mia));
      assertV2Problem(await get(fx.app, `${V2}/${uuid.a3}`, fx.key.mia), 404, 'not-found');
      assertV2Ok(await get(fx.app, `${V2}/${uuid.a3}`, fx.key.subAdmin));
      assertV2Ok(await get(fx.app, `${V2}/${uuid.a4}`, fx.key.subAdmin));
      assertV2Problem(await get(fx.app, `${V2}/${uuid.a5}`, fx.key.subAdmin), 404, 'not-found');
      assertV2Ok(await get(fx.app, `${V2}/${uuid.a5}`, fx.key.admin));
    });

    it("another team's lead is the same 404 as a lead that does not exist", async () => {
      assert.ok(uuid.b1);
      const foreign = assertV2Problem(await get(fx.app, `${V2}/${uuid.b1}`, fx.key.admin), 404, 'not-found');
      const missing = assertV2Problem(
        await get(fx.app, `${V2}/01900000-0000-7000-8000-000000000000`, fx.key.admin),
        404,
        'not-found',
      );
      assert.equal(foreign.title, missing.title);
      assertV2Problem(await get(fx.app, `${V2}/not-a-uuid`, fx.key.admin), 404, 'not-found');
      assertV2Ok(await get(fx.app, `${V2}/${uuid.b1}`, fx.key.outsider));
    });

    it('the member ids it names are the collectors', async () => {
      const res = await get(fx.app, `${V2}/${uuid.a3}`, fx.key.admin);
      const body = assertV2Ok(res) as { data: { assignedMembers: number[]; leadSource: string } };
      assert.deepEqual(body.data.assignedMembers, [M.max]);
      assert.equal(body.data.leadSource, 'APP_TO_APP');
    });
  });
}
