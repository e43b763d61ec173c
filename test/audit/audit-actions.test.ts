import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AuditEntry } from '../../src/audit/audit.port.js';
import { listAudit } from '../../src/audit/list-audit.js';
import { recordRetentionRun } from '../../src/retention/record-run.js';
import type { Store } from '../../src/store.js';
import type { HostLookup } from '../../src/webhooks/address.js';
import { form, type Signed, signIn } from '../console/session.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';

/**
 * The audit log (issue 40 item 7, docs/privacy.md "Audit log"): every audited action — through
 * the API, the console and the use cases the command line shares — leaves exactly one record
 * with the right actor and ids; no record holds an e-mail, a name or a URL; the API pages a
 * team's records (cursor, NDJSON), shows another team's admin none of them and refuses a
 * member's key; a bulk read over LEADLINE_AUDIT_BULK_READ is recorded.
 */
const A = 4701;
const B = 4702;
const A_ADMIN = 47011;
const A_MEMBER = 47012;
const B_ADMIN = 47021;
const NOW = Date.now();
const PERSONAL = [
  'audit-admin@a.test',
  'audit-member@a.test',
  'audit-admin@b.test',
  'rosa@x.test',
  'Rosa Roth',
  'Ida Iverson',
  'ida@x.test',
  'hooks.example.com/in/token',
];
const lookup: HostLookup = async () => ['93.184.216.34'];
const SEAL = Buffer.alloc(32, 7).toString('base64');

for (const engine of enginesUnderTest()) {
  describe(`audit log [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let bulk: FastifyInstance;
    const keys: Record<string, string> = {};
    const leadIds: string[] = [];
    let admin: Signed;
    let operator: Signed;
    let checked = 0;

    const all = async (): Promise<AuditEntry[]> =>
      (await listAudit(store, { operator: { teamId: null } }, { before: null, limit: 1000 })).records;
    /** Runs `act` and returns the one record it left (failing on none or several). */
    const onlyRecordOf = async (act: () => Promise<unknown>): Promise<AuditEntry> => {
      const newest = (await all())[0]?.id ?? 0;
      await act();
      const added = (await all()).filter((r) => r.id > newest);
      assert.equal(added.length, 1, JSON.stringify(added));
      checked++;
      return added[0]!;
    };
    const call = async (o: InjectOptions, status: number, target = app) => {
      const res = await target.inject(o);
      assert.equal(res.statusCode, status, res.body);
      return res;
    };
    const json = (
      key: string,
      method: 'POST' | 'PATCH' | 'DELETE',
      url: string,
      body?: unknown,
    ): InjectOptions => ({
      method,
      url,
      headers: {
        ...auth(key),
        ...(body === undefined
          ? {}
          : {
              'content-type':
                method === 'PATCH' && url.includes('/leads/')
                  ? 'application/merge-patch+json'
                  : 'application/json',
            }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: A, name: 'Audited' },
        { type: 'team', id: B, name: 'Other' },
        { type: 'member', id: A_ADMIN, teamId: A, email: 'audit-admin@a.test', role: 'admin', pid: 'a' },
        { type: 'member', id: A_MEMBER, teamId: A, email: 'audit-member@a.test', role: 'member', pid: 'm' },
        { type: 'member', id: B_ADMIN, teamId: B, email: 'audit-admin@b.test', role: 'admin', pid: 'b' },
        {
          type: 'lead',
          userId: A_ADMIN,
          id: 'r1',
          epoch: 1_750_000_000_001,
          isLead: true,
          email: 'rosa@x.test',
          name: 'Rosa Roth',
        },
        {
          type: 'lead',
          userId: A_ADMIN,
          id: 'r2',
          epoch: 1_750_000_000_002,
          isLead: true,
          email: 'rosa@x.test',
          company: 'Acme',
        },
        {
          type: 'lead',
          userId: A_ADMIN,
          id: 'i1',
          epoch: 1_750_000_000_003,
          isLead: true,
          email: 'ida@x.test',
          name: 'Ida Iverson',
        },
      ]);
      for await (const batch of store.leads.scan({ teamId: A }, 10))
        leadIds.push(...batch.map((l) => l.uuid));
      const config = { LEADLINE_WEBHOOK_SECRET_KEY: SEAL };
      app = await buildApp({ config: testConfig(config), store, hostLookup: lookup });
      bulk = await buildApp({
        config: testConfig({ ...config, LEADLINE_AUDIT_BULK_READ: '2' }),
        store,
        hostLookup: lookup,
      });
      keys.admin = await keyFor(store, { member: A_ADMIN, legacyV1: true });
      keys.member = await keyFor(store, A_MEMBER);
      keys.other = await keyFor(store, B_ADMIN);
      admin = await signIn(app, store, A_ADMIN, Date.now());
      operator = await signIn(app, store, null, Date.now());
    });
    after(async () => {
      await app.close();
      await bulk.close();
      await made.cleanup();
    });

    it('keys made for tests are recorded as the operator’s', async () => {
      const made = await all();
      const created = made.filter((r) => r.action === 'key.created');
      assert.equal(created.length, 3);
      assert.ok(created.every((r) => r.actor.via === 'operator'));
      assert.deepEqual(created.map((r) => r.teamId).sort(), [A, A, B]);
    });

    it('console: key created and revoked, brownout scheduled and removed — one record each, by the session', async () => {
      const created = await onlyRecordOf(() =>
        form(app, admin, `/console/keys`, { _csrf: admin.csrf, member: String(A_MEMBER), label: 'audit' }),
      );
      assert.equal(created.action, 'key.created');
      assert.deepEqual(created.actor, { via: 'console', memberId: A_ADMIN });
      assert.equal(created.teamId, A);
      const keyId = created.details.keyId as number;
      assert.equal(created.details.memberId, A_MEMBER);
      const revoked = await onlyRecordOf(async () => {
        const res = await form(app, admin, `/console/keys/${keyId}/revoke`, { _csrf: admin.csrf });
        assert.equal(res.statusCode, 303, res.body);
      });
      assert.deepEqual(
        [revoked.action, revoked.actor, revoked.details.keyId],
        ['key.revoked', { via: 'console', memberId: A_ADMIN }, keyId],
      );
      const scheduled = await onlyRecordOf(async () => {
        const res = await form(app, operator, '/console/brownouts', {
          _csrf: operator.csrf,
          starts: new Date(NOW + 86_400_000).toISOString().slice(0, 16),
          ends: new Date(NOW + 90_000_000).toISOString().slice(0, 16),
        });
        assert.equal(res.statusCode, 200, res.body);
      });
      assert.deepEqual(
        [scheduled.action, scheduled.actor, scheduled.teamId],
        ['brownout.scheduled', { via: 'operator' }, null],
      );
      const removed = await onlyRecordOf(async () => {
        const res = await form(app, operator, `/console/brownouts/${scheduled.details.brownoutId}/remove`, {
          _csrf: operator.csrf,
        });
        assert.equal(res.statusCode, 303, res.body);
      });
      assert.deepEqual(
        [removed.action, removed.details.brownoutId],
        ['brownout.removed', scheduled.details.brownoutId],
      );
    });

    it('API: a webhook endpoint created, updated, rotated and removed — one record each, by the key', async () => {
      const key = { via: 'key', keyId: await keyIdOf(keys.admin!), memberId: A_ADMIN };
      let endpointId = '';
      const created = await onlyRecordOf(async () => {
        const res = await call(
          json(keys.admin!, 'POST', '/api/pub/v2/webhooks', { url: 'https://hooks.example.com/in/token' }),
          201,
        );
        endpointId = (JSON.parse(res.body) as { data: { id: string } }).data.id;
      });
      assert.deepEqual(
        [created.action, created.actor, created.teamId, created.details.endpointId],
        ['webhook.created', key, A, endpointId],
      );
      const updated = await onlyRecordOf(() =>
        call(
          json(keys.admin!, 'PATCH', `/api/pub/v2/webhooks/${endpointId}`, {
            description: 'Rosa Roth',
            enabled: false,
          }),
          200,
        ),
      );
      assert.deepEqual(
        [updated.action, updated.details.changed],
        ['webhook.updated', ['description', 'enabled']],
      );
      const rotated = await onlyRecordOf(() =>
        call(json(keys.admin!, 'POST', `/api/pub/v2/webhooks/${endpointId}/rotate-secret`), 200),
      );
      assert.deepEqual(
        [rotated.action, rotated.actor, rotated.details.endpointId],
        ['webhook.secret_rotated', key, endpointId],
      );
      const removed = await onlyRecordOf(() =>
        call(json(keys.admin!, 'DELETE', `/api/pub/v2/webhooks/${endpointId}`), 204),
      );
      assert.deepEqual([removed.action, removed.details.endpointId], ['webhook.removed', endpointId]);
    });

    it('API: a lead updated, merged, a subject access answered, a person erased — one record each', async () => {
      const key = { via: 'key', keyId: await keyIdOf(keys.admin!), memberId: A_ADMIN };
      const [r1, r2, i1] = leadIds;
      const updated = await onlyRecordOf(() =>
        call(
          json(keys.admin!, 'PATCH', `/api/pub/v2/leads/${r1}`, {
            systemFields: { companyName: 'Rosa GmbH' },
          }),
          200,
        ),
      );
      assert.deepEqual(
        [updated.action, updated.actor, updated.teamId, updated.details.leadId, updated.details.changed],
        ['lead.updated', key, A, r1, ['systemFields.companyName']],
      );
      // A patch that changes nothing writes nothing, and records nothing.
      const before = (await all()).length;
      await call(
        json(keys.admin!, 'PATCH', `/api/pub/v2/leads/${r1}`, { systemFields: { companyName: 'Rosa GmbH' } }),
        200,
      );
      assert.equal((await all()).length, before);
      const merged = await onlyRecordOf(() =>
        call(json(keys.admin!, 'POST', `/api/pub/v2/leads/${r1}/merge`, { mergeLeadIds: [r2] }), 200),
      );
      assert.deepEqual(
        [merged.action, merged.details.leadId, merged.details.mergedLeadIds],
        ['lead.merged', r1, [r2]],
      );
      const access = await onlyRecordOf(() =>
        call(json(keys.admin!, 'POST', '/api/pub/v2/subject-access', { email: 'rosa@x.test' }), 200),
      );
      assert.deepEqual(
        [access.action, access.actor, access.details],
        ['subject_access.answered', key, { leads: 2, deliveries: 0 }],
      );
      let erasureId = '';
      const erased = await onlyRecordOf(async () => {
        const res = await call(
          json(keys.admin!, 'POST', '/api/pub/v2/erasures', { email: 'rosa@x.test' }),
          201,
        );
        erasureId = (JSON.parse(res.body) as { data: { erasureId: string } }).data.erasureId;
      });
      assert.equal(erased.action, 'lead.erased');
      assert.deepEqual(erased.actor, key);
      assert.deepEqual(
        [erased.details.erasureId, erased.details.byEmail, erased.details.leads, erased.details.mergedLeads],
        [erasureId, true, 2, 0],
      );
      const byIds = await onlyRecordOf(() =>
        call(json(keys.admin!, 'POST', '/api/pub/v2/erasures', { leadIds: [i1] }), 201),
      );
      assert.deepEqual([byIds.details.byEmail, byIds.details.leadIds, byIds.details.leads], [false, 1, 1]);
      // A refused erasure (a lead of no one) erases nothing and records nothing.
      const count = (await all()).length;
      await call(json(keys.admin!, 'POST', '/api/pub/v2/erasures', { leadIds: [i1] }), 400);
      assert.equal((await all()).length, count);
    });

    it('a bulk read over LEADLINE_AUDIT_BULK_READ leaves one leads.bulk_read record; a smaller one none', async () => {
      await load(
        store,
        [1, 2, 3].map((i) => ({
          type: 'lead',
          userId: A_ADMIN,
          id: `bulk-${i}`,
          epoch: 1_750_000_001_000 + i,
          isLead: true,
          company: 'Bulk',
        })),
      );
      const keyId = await keyIdOf(keys.admin!);
      const search = (limit: number) =>
        json(keys.admin!, 'POST', '/api/pub/v2/leads/search', { filters: { teamId: A }, limit });
      const count = (await all()).length;
      await call(search(2), 200, bulk);
      assert.equal((await all()).length, count, 'a page of 2 is not more than 2');
      const page = await onlyRecordOf(() => call(search(3), 200, bulk));
      assert.deepEqual(
        [page.action, page.teamId, page.details],
        ['leads.bulk_read', A, { operation: 'searchLeads', count: 3, keyId }],
      );
      const newest = (await all())[0]!.id;
      await call(
        { method: 'GET', url: '/api/pub/leads/getLeadsTimeRangeForTeam?start=0', headers: auth(keys.admin!) },
        200,
        bulk,
      );
      const range = await eventually(async () => {
        const added = (await all()).filter((r) => r.id > newest);
        assert.equal(added.length, 1);
        return added[0]!;
      });
      assert.deepEqual(range.details, { operation: 'getLeadsTimeRangeForTeam', count: 3, keyId });
    });

    it('retention.run is an action the retention schedule records as the server', async () => {
      const erasureIds = ['018bcfe5-6800-7000-8000-0000000000a1'];
      const team = { teamId: A, days: 30, cutoff: 0, due: 2, erased: 2, erasureIds, skipped: false };
      const run = await onlyRecordOf(() =>
        recordRetentionRun(store, {
          at: NOW,
          dryRun: false,
          by: { via: 'schedule' },
          // A team whose run erased nothing, or that another run held, leaves no record.
          teams: [team, { ...team, teamId: B, erased: 0, erasureIds: [] }, { ...team, skipped: true }],
          receipts: null,
        }),
      );
      assert.deepEqual(
        [run.action, run.actor, run.teamId, run.details],
        ['retention.run', { via: 'server' }, A, { days: 30, leads: 2, erasureIds }],
      );
    });

    it('no audit record holds an e-mail, a name or a URL', async () => {
      assert.ok(checked >= 14, `the actions above ran first (${checked})`);
      const text = JSON.stringify(await all()).toLowerCase();
      for (const value of PERSONAL)
        assert.ok(!text.includes(value.toLowerCase()), `${value} is in the audit log`);
    });

    it('GET /api/pub/v2/audit: the team’s records a page at a time, as NDJSON, none of another team’s; a member’s key is refused', async () => {
      const ours = (await all()).filter((r) => r.teamId === A).map((r) => String(r.id));
      assert.ok(ours.length > 10);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await call(
          { method: 'GET', url: `/api/pub/v2/audit?limit=4${q}`, headers: auth(keys.admin!) },
          200,
        );
        const body = JSON.parse(res.body) as {
          data: { records: { id: string }[]; nextCursor: string | null };
        };
        assert.ok(body.data.records.length <= 4);
        seen.push(...body.data.records.map((r) => r.id));
        cursor = body.data.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(seen, ours, 'every record of the team, newest first, once');
      const nd = await call(
        { method: 'GET', url: '/api/pub/v2/audit?format=ndjson', headers: auth(keys.admin!) },
        200,
      );
      assert.match(String(nd.headers['content-type']), /^application\/x-ndjson/);
      assert.deepEqual(
        nd.body
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: string }).id),
        ours,
      );
      const erased = await call(
        { method: 'GET', url: '/api/pub/v2/audit?action=lead.erased', headers: auth(keys.admin!) },
        200,
      );
      assert.equal((JSON.parse(erased.body) as { data: { records: unknown[] } }).data.records.length, 2);
      const theirs = await call({ method: 'GET', url: '/api/pub/v2/audit', headers: auth(keys.other!) }, 200);
      const records = (JSON.parse(theirs.body) as { data: { records: { teamId: number | null }[] } }).data
        .records;
      assert.deepEqual(
        records.map((r) => r.teamId),
        [B],
        'team B sees only its own key’s creation',
      );
      await call({ method: 'GET', url: '/api/pub/v2/audit', headers: auth(keys.member!) }, 403);
      const first = await call(
        { method: 'GET', url: '/api/pub/v2/audit?limit=1', headers: auth(keys.admin!) },
        200,
      );
      const next = (JSON.parse(first.body) as { data: { nextCursor: string } }).data.nextCursor;
      const replayed = await call(
        {
          method: 'GET',
          url: `/api/pub/v2/audit?cursor=${encodeURIComponent(next)}`,
          headers: auth(keys.other!),
        },
        400,
      );
      assert.match(String(replayed.headers['content-type']), /problem\+json/);
      for (const q of [
        'limit=0',
        'limit=x',
        'action=lead.eaten',
        'since=yesterday',
        'format=csv',
        'format=ndjson&limit=2',
        'colour=red',
      ])
        await call({ method: 'GET', url: `/api/pub/v2/audit?${q}`, headers: auth(keys.admin!) }, 400);
      const since = await call(
        {
          method: 'GET',
          url: `/api/pub/v2/audit?since=${new Date(NOW + 3_600_000).toISOString()}`,
          headers: auth(keys.admin!),
        },
        200,
      );
      assert.deepEqual((JSON.parse(since.body) as { data: { records: unknown[] } }).data.records, []);
    });

    async function keyIdOf(secret: string): Promise<number> {
      const res = await call({ method: 'GET', url: '/api/pub/v2/me', headers: auth(secret) }, 200);
      return (JSON.parse(res.body) as { data: { key: { id: number } } }).data.key.id;
    }
  });
}
