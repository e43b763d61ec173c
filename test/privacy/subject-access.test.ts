import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Compile } from 'typebox/compile';
import { createLeadline } from '../../packages/client/src/index.js';
import type { StoredLead } from '../../src/leads/lead.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { V2Lead } from '../../src/schemas/v2.js';
import { CARRIED_SQL, emailCandidatesQuery } from '../../src/storage/sqlite/privacy.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, makeApp, makeStore } from '../support/helpers.js';

/**
 * Subject access (docs/privacy.md "Subject access", issue 40 item 5): one person's leads by
 * their e-mail, compared trimmed and in lower case, in the caller's scope (get-by-id's), merged
 * leads marked, each with the webhook deliveries that carried it — the endpoint's host only.
 */
const TEAM = 4051;
const ADMIN = 40511;
const MIA = 40512;
const MAX = 40513;
const OTHER_TEAM = 4052;
const OUTSIDER = 40521;
const URL_ = '/api/pub/v2/subject-access';
const checkLead = Compile(V2Lead);

interface Delivery {
  eventId: string;
  type: string;
  endpointId: string;
  endpointHost: string;
  createdAt: string;
  state: string;
  attempts: number;
  lastAttemptAt: string | null;
}
interface Answer {
  data: {
    email: string;
    answeredAt: string;
    leads: { lead: V2Lead & { legacyLeadId: string }; mergedInto: string | null; deliveries: Delivery[] }[];
  };
}

let n = 0;
const lead = (userId: number, id: string, email: string, more: object = {}) => ({
  type: 'lead',
  userId,
  id,
  epoch: 1_750_000_000_000 + ++n,
  isLead: true,
  email,
  ...more,
});

for (const engine of enginesUnderTest()) {
  describe(`subject access [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let endpointId: string;
    const key: Record<string, string> = {};
    const byId = new Map<string, StoredLead>();

    const ask = (k: string | undefined, body: unknown): Promise<LightMyRequestResponse> =>
      app.inject({
        method: 'POST',
        url: URL_,
        headers: { 'content-type': 'application/json', ...(k === undefined ? {} : auth(k)) },
        payload: JSON.stringify(body),
      });
    const answer = async (k: string, email: string): Promise<Answer> => {
      const res = await ask(k, { email });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const body = JSON.parse(res.body) as Answer;
      for (const l of body.data.leads)
        assert.ok(checkLead.Check(l.lead), JSON.stringify([...checkLead.Errors(l.lead)][0]));
      return body;
    };
    const ids = (a: Answer) => a.data.leads.map((l) => l.lead.legacyLeadId).sort();

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Access' },
        { type: 'team', id: OTHER_TEAM, name: 'Elsewhere' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@access.test', role: 'admin', pid: 'a' },
        { type: 'member', id: MIA, teamId: TEAM, email: 'mia@access.test', role: 'member', pid: 'm' },
        { type: 'member', id: MAX, teamId: TEAM, email: 'max@access.test', role: 'member', pid: 'x' },
        { type: 'member', id: OUTSIDER, teamId: OTHER_TEAM, email: 'o@else.test', role: 'admin', pid: 'o' },
      ]);
      // Before the leads: their lead.created events are written with them (the outbox).
      endpointId = (
        await store.webhooks.addEndpoint({
          teamId: TEAM,
          url: 'https://hooks.example.com:8443/in/secret-token?sig=abc',
          description: null,
          eventTypes: ['lead.created', 'lead.updated', 'lead.merged'],
          members: null,
          subteams: null,
          secret: 'whsec_x',
          includePrevious: false,
          createdAt: Date.now() - 1000,
        })
      ).id;
      await store.webhooks.addEndpoint({
        teamId: OTHER_TEAM,
        url: 'https://other-team.example.net/hook',
        description: null,
        eventTypes: ['lead.created'],
        members: null,
        subteams: null,
        secret: 'whsec_y',
        includePrevious: false,
        createdAt: Date.now() - 1000,
      });
      await load(store, [
        lead(ADMIN, 'admin-1', 'anna@x.test', { name: 'Anna Berg' }),
        lead(MIA, 'mia-1', '  Anna@X.test ', { name: 'Anna B.' }),
        lead(MIA, 'mia-2', 'ANNA@x.TEST', { company: 'Acme' }),
        // The same words, another address: candidates of the index, not the person.
        lead(MIA, 'mia-3', 'anna.berg@x.test'),
        lead(MIA, 'mia-4', 'x.test@anna'),
        lead(MIA, 'mia-5', 'other@x.test', { name: 'anna@x.test' }),
        // The address inside another (PostgreSQL's LIKE finds it; the address decides).
        lead(MIA, 'mia-6', 'hanna@x.test.example'),
        lead(MAX, 'max-1', 'anna@x.test'),
        lead(OUTSIDER, 'out-1', 'anna@x.test', { name: 'Anna Elsewhere' }),
      ]);
      for (const teamId of [TEAM, OTHER_TEAM])
        for await (const batch of store.leads.scan({ teamId }, 100)) for (const l of batch) byId.set(l.id, l);
      const at = Date.now() + 60_000;
      while ((await store.deliveries.dispatch(100, at)) > 0);
      // One delivery attempted and delivered: its attempt time is in the answer.
      const claimed = await store.deliveries.claim(100, at);
      const mia1 = claimed.find((d) => JSON.parse(d.payload).data.leadId === byId.get('mia-1')!.uuid);
      assert.ok(mia1 !== undefined);
      await store.deliveries.record(
        mia1,
        { at: 1_760_000_000_000, status: 200, latencyMs: 12, answer: 'ok' },
        { kind: 'delivered' },
      );
      await store.deliveries.release(
        claimed.filter((d) => d !== mia1),
        at,
      );
      await mergeLeads(store, {
        by: { operator: { teamId: TEAM } },
        leadId: byId.get('mia-1')!.uuid,
        mergeLeadIds: [byId.get('mia-2')!.uuid],
        source: 'cli',
        now: Date.now(),
      });
      while ((await store.deliveries.dispatch(100, at)) > 0);
      app = await makeApp(store);
      key.admin = await keyFor(store, ADMIN);
      key.mia = await keyFor(store, MIA);
      key.max = await keyFor(store, MAX);
      key.outsider = await keyFor(store, OUTSIDER);
    });
    after(async () => {
      await app?.close();
      await made.cleanup();
    });

    it("a team admin gets every lead of the person on the team, whatever the address's case and space", async () => {
      const body = await answer(key.admin!, '  ANNA@x.Test ');
      assert.equal(body.data.email, 'anna@x.test');
      assert.ok(Math.abs(Date.parse(body.data.answeredAt) - Date.now()) < 60_000);
      assert.deepEqual(ids(body), ['admin-1', 'max-1', 'mia-1', 'mia-2']);
      // In the order stored.
      assert.deepEqual(
        body.data.leads.map((l) => l.lead.legacyLeadId),
        ['admin-1', 'mia-1', 'mia-2', 'max-1'],
      );
    });

    it('a member gets their own leads only; another member theirs', async () => {
      assert.deepEqual(ids(await answer(key.mia!, 'anna@x.test')), ['mia-1', 'mia-2']);
      assert.deepEqual(ids(await answer(key.max!, 'anna@x.test')), ['max-1']);
    });

    it("another team's leads never: each team sees its own", async () => {
      const outsider = await answer(key.outsider!, 'anna@x.test');
      assert.deepEqual(ids(outsider), ['out-1']);
      assert.deepEqual(
        outsider.data.leads[0]!.deliveries.map((d) => d.endpointHost),
        ['other-team.example.net'],
      );
      const admin = await answer(key.admin!, 'anna@x.test');
      assert.ok(!JSON.stringify(admin).includes('other-team.example.net'));
      assert.ok(!JSON.stringify(admin).includes('Anna Elsewhere'));
    });

    it('a merged lead is in it, marked with the lead it was merged into', async () => {
      const body = await answer(key.mia!, 'anna@x.test');
      const merged = body.data.leads.find((l) => l.lead.legacyLeadId === 'mia-2')!;
      const survivor = body.data.leads.find((l) => l.lead.legacyLeadId === 'mia-1')!;
      assert.equal(merged.mergedInto, byId.get('mia-1')!.uuid);
      assert.equal(survivor.mergedInto, null);
      assert.equal(merged.lead.leadId, byId.get('mia-2')!.uuid);
      assert.equal(merged.lead.systemFields.companyName, 'Acme');
    });

    it('lists the deliveries that carried each lead, with the endpoint host only', async () => {
      const body = await answer(key.admin!, 'anna@x.test');
      const of = (id: string) => body.data.leads.find((l) => l.lead.legacyLeadId === id)!.deliveries;
      const mia1 = of('mia-1');
      assert.deepEqual(
        mia1.map((d) => [d.type, d.endpointId, d.endpointHost]),
        [
          ['lead.created', endpointId, 'hooks.example.com:8443'],
          // The survivor took mia-2's company: it changed.
          ['lead.updated', endpointId, 'hooks.example.com:8443'],
        ],
      );
      assert.deepEqual(
        [mia1[0]!.state, mia1[0]!.attempts, mia1[0]!.lastAttemptAt],
        ['delivered', 1, new Date(1_760_000_000_000).toISOString()],
      );
      assert.deepEqual([mia1[1]!.state, mia1[1]!.attempts, mia1[1]!.lastAttemptAt], ['pending', 0, null]);
      assert.deepEqual(
        of('mia-2').map((d) => d.type),
        ['lead.created', 'lead.merged'],
      );
      assert.deepEqual(
        of('max-1').map((d) => d.type),
        ['lead.created'],
      );
      for (const d of body.data.leads.flatMap((l) => l.deliveries)) {
        assert.match(d.eventId, /^[0-9a-f-]{36}$/);
        assert.ok(!Number.isNaN(Date.parse(d.createdAt)));
      }
      const text = JSON.stringify(body);
      assert.ok(!text.includes('secret-token') && !text.includes('sig=abc') && !text.includes('https://'));
    });

    it('nobody of that address: an empty list', async () => {
      const body = await answer(key.admin!, 'nobody@x.test');
      assert.deepEqual(body.data, { email: 'nobody@x.test', answeredAt: body.data.answeredAt, leads: [] });
    });

    it('an address that is not plausible is a 400 naming /email', async () => {
      for (const email of ['anna', '@x.test', 'anna@', 'an na@x.test', `${'a'.repeat(250)}@x.test`, '']) {
        const res = await ask(key.admin, { email });
        assert.equal(res.statusCode, 400, `${email}: ${res.body}`);
        const problem = JSON.parse(res.body) as { type: string; invalid_params: { name: string }[] };
        assert.match(problem.type, /invalid-parameters$/);
        assert.deepEqual(
          problem.invalid_params.map((p) => p.name),
          ['/email'],
          email,
        );
      }
      const missing = await ask(key.admin, {});
      assert.equal(missing.statusCode, 400);
      // The key is checked before the body.
      assert.equal((await ask('wrong', { email: 'anna' })).statusCode, 401);
    });

    it('is counted in the usage ledger as subjectAccess, like every v2 operation', async () => {
      await eventually(async () => {
        const rows = (await store.retirement.usage(null)).filter((r) => r.operation === 'subjectAccess');
        assert.ok(rows.every((r) => r.api === 'v2'));
        assert.deepEqual([...new Set(rows.map((r) => r.status))].sort(), [200, 400]);
      });
    });

    it('the typed client asks with client.privacy.subjectAccess(email)', async () => {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const seen: string[] = [];
      const client = createLeadline({
        baseUrl: base,
        apiKey: key.mia!,
        fetch: (input, init) => {
          seen.push(input instanceof Request ? input.url : String(input));
          return fetch(input, init);
        },
      });
      const got = await client.privacy.subjectAccess(' ANNA@x.test');
      assert.equal(got.email, 'anna@x.test');
      assert.deepEqual(got.leads.map((l) => l.lead.legacyLeadId).sort(), ['mia-1', 'mia-2']);
      assert.deepEqual(seen, [`${base}/api/pub/v2/subject-access`]);
    });

    it('the e-mail goes in the body, never in the URL: any other method is a 405', async () => {
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE'] as const) {
        const res = await app.inject({ method, url: `${URL_}?email=anna@x.test`, headers: auth(key.admin!) });
        assert.equal(res.statusCode, 405, method);
        assert.equal(res.headers.allow, 'POST');
      }
    });
  });
}

/** docs/privacy.md "How it stays fast": the plans start from the indexes, whatever the scope. */
describe('subject access query plans [sqlite]', () => {
  let db: Database.Database;
  let cleanup: () => Promise<void>;
  before(async () => {
    const made = await makeStore();
    cleanup = made.cleanup;
    db = new Database(made.path);
    db.exec('ANALYZE');
  });
  after(async () => {
    db.close();
    await cleanup();
  });
  const plan = (sql: string, params: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);

  it("a person's leads: from the FTS5 candidates, each lead by its key", () => {
    for (const scope of [
      { teamId: 1 },
      { teamId: 1, members: [2] },
      { teamId: 1, members: [2], subteams: [3] },
    ]) {
      const q = emailCandidatesQuery(scope, 'anna@x.test')!;
      const steps = plan(q.sql, q.params);
      assert.match(steps[0]!, /^SCAN lead_text VIRTUAL TABLE/, steps.join(' | '));
      assert.ok(steps.includes('SEARCH l USING INTEGER PRIMARY KEY (rowid=?)'), steps.join(' | '));
      assert.ok(
        !steps.some((s) => /^SCAN (l|leads)\b/.test(s) || /SEARCH l USING INDEX/.test(s)),
        steps.join(' | '),
      );
    }
  });

  it("their deliveries: through webhook_events_lead, never the team's events", () => {
    const steps = plan(CARRIED_SQL, ['[1,2,3]', 1]);
    assert.ok(
      steps.includes('SEARCH e USING INDEX webhook_events_lead (team_id=? AND lead_seq=?)'),
      steps.join(' | '),
    );
    assert.ok(
      steps.some((s) => /SEARCH d USING INDEX .*\(event_id=\?\)/.test(s)),
      steps.join(' | '),
    );
  });
});
