import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { StoredLead } from '../../src/leads/lead.js';
import { mergeLeads } from '../../src/leads/merge-leads.js';
import { updateLead } from '../../src/leads/update-lead.js';
import { eraseData } from '../../src/privacy/erase.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { load, testConfig } from '../support/helpers.js';
import { endpointFor } from '../webhooks/endpoints.js';
import { type Signed, signIn } from './session.js';
import { twoTeams } from './two-teams.js';

/**
 * Issue 39 §5 through the real app (docs/console.md, "Lead page"): a team admin finds their
 * team's leads by e-mail (trimmed, without case), opens one and sees its values, version, last
 * change, merges and history (field names, never values); a merged lead names its survivor;
 * another team's lead is not found by search or by URL; lead text is escaped.
 */
const A = 3951;
const B = 3952;
const ADMIN_A = 39511;
const ADMIN_B = 39521;
const SCRIPT = '<script>alert("lead")</script>';

for (const engine of enginesUnderTest()) {
  describe(`console lead page [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    const clock = Date.now();
    let a: Signed;
    let b: Signed;
    const lead = (userId: number, id: string, email: string, name: string, n: number, company = 'Acme') => ({
      type: 'lead',
      userId,
      id,
      epoch: clock - 60_000 + n,
      isLead: true,
      email,
      name,
      company: n === 1 ? SCRIPT : company,
    });
    const get = (url: string, s: Signed) => app.inject({ url, headers: { cookie: s.cookie } });
    const byLegacyId = async (teamId: number, id: string): Promise<StoredLead> => {
      const found = await store.leads.byEmail(teamId, `${id}@dup.test`, 10);
      assert.equal(found.length, 1, `one lead ${id}`);
      return found[0]!;
    };

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'admin@a.test', role: 'admin', pid: 'p-a' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'admin@b.test', role: 'admin', pid: 'p-b' },
        ],
      );
      store = made.store;
      // Team A's endpoint takes every event: the outbox keeps the history the page shows.
      await endpointFor(store, A, {
        eventTypes: ['lead.created', 'lead.updated', 'lead.merged'],
        createdAt: clock,
      });
      await load(store, [
        lead(ADMIN_A, 'anna-1', '  Anna.Lee@Example.COM ', 'Anna Lee', 1),
        lead(ADMIN_A, 'anna-2', 'anna.lee@example.com', 'Anna L.', 2),
        lead(ADMIN_A, 'other', 'anna.lee@example.co', 'Not Anna', 3),
        lead(ADMIN_B, 'anna-b', 'anna.lee@example.com', 'Anna of B', 4),
        lead(ADMIN_A, 'surv', 'surv@dup.test', 'Survivor', 5),
        lead(ADMIN_A, 'dupe', 'dupe@dup.test', 'Duplicate', 6),
      ]);
      app = await buildApp({ config: testConfig(), store, now: () => clock });
      a = await signIn(app, store, ADMIN_A, clock);
      b = await signIn(app, store, ADMIN_B, clock);
    });
    after(async () => {
      await app?.close();
      await made?.cleanup();
    });

    test('finds the team’s leads by e-mail, whatever its case and surrounding spaces', async () => {
      const res = await get(`/console/leads?email=${encodeURIComponent('  ANNA.lee@example.com ')}`, a);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /Anna Lee/);
      assert.match(res.body, /Anna L\./);
      assert.doesNotMatch(res.body, /Not Anna/, 'a longer or shorter address is another e-mail');
      assert.doesNotMatch(res.body, /Anna of B/, 'another team’s lead is not found');
      assert.ok(!res.body.includes(SCRIPT), 'a listed lead’s text is never markup');
      assert.ok(res.body.includes('&lt;script&gt;alert(&quot;lead&quot;)&lt;/script&gt;'));
      const links = [...res.body.matchAll(/href="\/console\/leads\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
      assert.equal(new Set(links).size, 2);
      assert.match(res.body, /aria-current="page">Leads</, 'the console’s nav marks the view');
      const none = await get('/console/leads?email=nobody%40example.com', a);
      assert.match(none.body, /No lead has this e-mail/);
      const other = await get(`/console/leads?email=${encodeURIComponent('anna.lee@example.com')}`, b);
      assert.match(other.body, /Anna of B/);
      assert.doesNotMatch(other.body, /Anna Lee/);
    });

    test('a lead’s page shows its values escaped, its version and last change', async () => {
      const [found] = await store.leads.byEmail(A, 'anna.lee@example.com', 10);
      assert.ok(found);
      const anna = (await store.leads.byEmail(A, 'anna.lee@example.com', 10)).find((l) => l.id === 'anna-1')!;
      const res = await get(`/console/leads/${anna.uuid}`, a);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(!res.body.includes(SCRIPT), 'the lead’s text is never markup');
      assert.ok(res.body.includes('&lt;script&gt;alert(&quot;lead&quot;)&lt;/script&gt;'));
      assert.match(res.body, /<dt>Version<\/dt><dd>1<\/dd>/);
      assert.match(res.body, /<dt>Last change<\/dt><dd>none since it was stored<\/dd>/);
      assert.match(res.body, /systemFields\.email/);
      assert.match(res.body, /as far back|reaches back no further/);
      const history = res.body.slice(res.body.indexOf('id="history"'));
      assert.match(history, /<td>stored<\/td><td>1<\/td>/, 'its lead.created event is in its history');
    });

    test('an update and a merge are in the history: field names and source, never values', async () => {
      const surv = await byLegacyId(A, 'surv');
      const dupe = await byLegacyId(A, 'dupe');
      const by = { operator: { teamId: A } };
      await updateLead(store, {
        by,
        source: 'api',
        now: clock + 1000,
        leadId: surv.uuid,
        patch: { systemFields: { jobTitle: 'Chief Secret Officer' } },
      });
      await mergeLeads(store, {
        by,
        source: 'cli',
        now: clock + 2000,
        leadId: surv.uuid,
        mergeLeadIds: [dupe.uuid],
      });
      const res = await get(`/console/leads/${surv.uuid}`, a);
      assert.equal(res.statusCode, 200, res.body);
      const history = res.body.slice(res.body.indexOf('id="history"'));
      assert.match(history, /<td>stored<\/td><td>1<\/td><td>—<\/td>/);
      assert.match(history, /<td>changed<\/td><td>2<\/td><td>api<\/td>\s*<td>[\s\S]*?systemFields\.jobTitle/);
      assert.match(history, new RegExp(`${dupe.uuid}</code></a> merged into this lead`));
      assert.match(history, /<td>cli<\/td>/);
      assert.ok(
        history.indexOf('systemFields.jobTitle') < history.indexOf('merged into this lead'),
        'oldest first',
      );
      assert.ok(!history.includes('Chief Secret Officer'), 'no value in the history');
      assert.ok(!history.includes('surv@dup.test'), 'no value in the history');
      const now = (await store.leads.byUuid({ teamId: A }, surv.uuid))!;
      assert.match(res.body, new RegExp(`<dt>Version</dt><dd>${now.version}</dd>`));
      assert.ok(now.version >= 2);
      assert.match(res.body, /<dt>Last change<\/dt><dd>[^<]+ UTC, from (api|cli)<\/dd>/);
      const merged = res.body.slice(res.body.indexOf('id="merged"'), res.body.indexOf('id="history"'));
      assert.match(merged, new RegExp(`/console/leads/${dupe.uuid}`), 'the merged lead is listed');
    });

    test('a merged lead names the lead it was merged into, with a link', async () => {
      const surv = await byLegacyId(A, 'surv');
      const [dupe] = await store.leads.byEmail(A, 'dupe@dup.test', 10);
      assert.equal(dupe?.mergedInto, surv.uuid);
      const res = await get(`/console/leads/${dupe!.uuid}`, a);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, new RegExp(`merged into <a href="/console/leads/${surv.uuid}">`));
      const history = res.body.slice(res.body.indexOf('id="history"'));
      assert.match(
        history,
        new RegExp(
          `merged into <a href="/console/leads/${surv.uuid}"><code>[^<]+</code></a></td><td>2</td><td>cli</td>`,
        ),
      );
      const search = await get('/console/leads?email=DUPE%40dup.test', a);
      assert.match(search.body, /merged into/, 'the search lists a merged lead, marked');
    });

    test('an import that changes a lead is in its history, from import', async () => {
      const before = (await store.leads.byEmail(A, 'anna.lee@example.com', 10)).find(
        (l) => l.id === 'anna-2',
      )!;
      assert.equal(before.version, 1);
      const summary = await load(store, [
        lead(ADMIN_A, 'anna-2', 'anna.lee@example.com', 'Anna L.', 2, 'Globex'),
      ]);
      assert.equal(summary.changed, 1);
      const res = await get(`/console/leads/${before.uuid}`, a);
      const history = res.body.slice(res.body.indexOf('id="history"'));
      assert.match(
        history,
        /<td>changed<\/td><td>2<\/td><td>import<\/td>\s*<td>[\s\S]*?systemFields\.companyName/,
      );
      assert.ok(!history.includes('Globex') && !history.includes('Acme'), 'no value in the history');
      assert.match(res.body, /<dt>Last change<\/dt><dd>[^<]+ UTC, from import<\/dd>/);
    });

    test('another team’s lead is not found, by URL or by team', async () => {
      const [theirs] = await store.leads.byEmail(B, 'anna.lee@example.com', 10);
      assert.ok(theirs);
      const res = await get(`/console/leads/${theirs.uuid}`, a);
      assert.equal(res.statusCode, 404);
      assert.doesNotMatch(res.body, /Anna of B/);
      assert.equal((await get(`/console/leads/${theirs.uuid}?team=${B}`, a)).statusCode, 404);
      assert.equal((await get(`/console/leads/${theirs.uuid}`, b)).statusCode, 200);
      assert.equal((await get('/console/leads/not-a-uuid', a)).statusCode, 404);
      assert.equal((await get('/console/leads/0190b3a2-0000-7000-8000-000000000000', a)).statusCode, 404);
      assert.equal((await app.inject({ url: `/console/leads/${theirs.uuid}` })).statusCode, 401);
    });

    test('the operator sees any team’s lead', async () => {
      const op = await signIn(app, store, null, clock);
      const [theirs] = await store.leads.byEmail(B, 'anna.lee@example.com', 10);
      assert.equal((await get(`/console/leads/${theirs!.uuid}`, op)).statusCode, 200);
      const every = await get('/console/leads?email=anna.lee%40example.com', op);
      assert.match(every.body, /Anna of B/);
      assert.match(every.body, /Anna Lee/);
      const onlyA = await get(`/console/leads?email=anna.lee%40example.com&team=${A}`, op);
      assert.doesNotMatch(onlyA.body, /Anna of B/);
    });

    test('an erased lead is not found, and the search does not list it (issue 40)', async () => {
      const [gone] = await store.leads.byEmail(B, 'anna.lee@example.com', 10);
      assert.ok(gone);
      await eraseData(store, { by: { operator: { teamId: B } }, leadIds: [gone.uuid], now: Date.now() });
      assert.equal((await get(`/console/leads/${gone.uuid}`, b)).statusCode, 404);
      const search = await get('/console/leads?email=anna.lee%40example.com', b);
      assert.equal(search.statusCode, 200);
      assert.ok(!search.body.includes(gone.uuid), 'the tombstone is not listed');
    });
  });
}
