import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openStore } from '../../src/open-store.js';
import { eraseData } from '../../src/privacy/erase.js';
import { liftSuppression, listSuppressions } from '../../src/privacy/suppression.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, keyFor, load, testConfig } from '../support/helpers.js';
import { leadRecords } from '../support/lead-records.js';

/**
 * Issue 40's suppression bar (docs/privacy.md "Suppression"): after an erasure by e-mail, a v2
 * creation or an update carrying the address is `422 email-suppressed` and an import skips and
 * counts its records — on every engine, and still after the store is opened again (a restart);
 * other addresses are untouched; once the operator lifts it the address is accepted again.
 */
const TEAM = 4201;
const OTHER_TEAM = 4202;
const ADMIN = 42011;
const OTHER_ADMIN = 42021;
const EMAIL = 'gone.person@suppressed.test';

const creation = (email: string) => ({
  leadSource: 'MANUAL',
  captureDatetime: new Date().toISOString(),
  systemFields: { firstName: 'Gone', email },
});
const record = leadRecords('s', 1_760_000_000_000);
const leadRecord = (userId: number, email: string) => record(userId, { name: 'Gone Person', email });

for (const engine of enginesUnderTest()) {
  describe(`suppression [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let keepId: string;

    const open = async (s: Store) => {
      store = s;
      app = await buildApp({ config: testConfig(), store });
    };

    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Suppressing' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'a@s.test', role: 'admin', pid: 'p' },
        { type: 'member', id: OTHER_ADMIN, teamId: OTHER_TEAM, email: 'b@s.test', role: 'admin', pid: 'q' },
        leadRecord(ADMIN, EMAIL),
        leadRecord(ADMIN, 'keep@suppressed.test'),
      ]);
      await open(made.store);
      key = await keyFor(store, ADMIN);
      const receipt = await eraseData(store, {
        by: {
          caller: {
            keyId: 1,
            memberId: ADMIN,
            teamId: TEAM,
            role: 'admin',
            keyCreatedAt: 0,
            legacyV1: false,
          },
        },
        email: EMAIL.toUpperCase(),
        now: Date.now(),
      });
      assert.equal(receipt.counts.leads, 1);
      for await (const b of store.leads.scan({ teamId: TEAM }, 10)) keepId = b[0]!.uuid;
    });
    after(async () => {
      await app.close();
      if (store !== made.store) await store.close();
      await made.cleanup();
    });

    async function refusedEverywhere(): Promise<void> {
      const created = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: auth(key),
        payload: creation(` ${EMAIL} `),
      });
      assert.equal(created.statusCode, 422, created.body);
      assert.equal(created.json().type.endsWith('/problems/email-suppressed'), true, created.body);
      const patched = await app.inject({
        method: 'PATCH',
        url: `/api/pub/v2/leads/${keepId}`,
        headers: { ...auth(key), 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ systemFields: { email: EMAIL } }),
      });
      assert.equal(patched.statusCode, 422, patched.body);
      const summary = await load(store, [leadRecord(ADMIN, EMAIL), leadRecord(ADMIN, 'new@suppressed.test')]);
      assert.deepEqual([summary.leads, summary.newLeads, summary.suppressed], [2, 1, 1]);
      // Another team's own leads are not this team's suppression's business.
      const elsewhere = await load(store, [leadRecord(OTHER_ADMIN, EMAIL)]);
      assert.deepEqual([elsewhere.newLeads, elsewhere.suppressed], [1, 0]);
    }

    it('refuses creation, update and import of the erased address; other addresses pass', async () => {
      await refusedEverywhere();
      const other = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: auth(key),
        payload: creation('someone.else@suppressed.test'),
      });
      assert.equal(other.statusCode, 201, other.body);
    });

    it('still refuses after the store is opened again (a restart)', async () => {
      await app.close();
      await open(await openStore(made.location));
      await refusedEverywhere();
    });

    it('the operator lists hashes and dates only, and lifts it', async () => {
      const listed = await listSuppressions(store, TEAM);
      assert.equal(listed.length, 1);
      assert.match(listed[0]!.emailHash, /^[0-9a-f]{64}$/);
      assert.equal(JSON.stringify(listed).includes('suppressed.test'), false);
      assert.equal(await liftSuppression(store, TEAM, EMAIL), true);
      const created = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: auth(key),
        payload: creation(EMAIL),
      });
      assert.equal(created.statusCode, 201, created.body);
    });
  });
}
