import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createSignInLink } from '../../src/console/sign-in.js';
import type { HostLookup } from '../../src/delivery/destination.js';
import { createKey } from '../../src/keys/create-key.js';
import { Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store.js';
import { type Signed, signIn } from '../console/session.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { keyFor, load, testConfig } from '../support/helpers.js';
import { endpointFor } from '../webhooks/endpoints.js';
import { type Doc, OpenApiAnswers } from './openapi-answers.js';

/**
 * The contract, checked from outside: representative traffic over every documented operation and
 * its error cases — some 250 requests per engine, in process — each answer checked against
 * docs/openapi.json (openapi-answers.ts: status, media type, JSON body against its schema,
 * headers). A route answering what the document does not say fails here, as it would behind
 * a validating proxy; so does a documented operation no request reached.
 */

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Doc;
const TOKEN = 'a-metrics-token-of-sixteen-plus';
const TEAM = 1;
const ADMIN = 11;
const MEMBER = 12;
const OTHER_ADMIN = 21;
const SUB = 101;
const directory = [
  { type: 'team', id: TEAM, name: 'One' },
  { type: 'team', id: 2, name: 'Two' },
  { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@one.test', role: 'admin', pid: 'p11' },
  { type: 'member', id: MEMBER, teamId: TEAM, email: 'member@one.test', role: 'member', pid: 'p12' },
  { type: 'member', id: OTHER_ADMIN, teamId: 2, email: 'admin@two.test', role: 'admin', pid: 'p21' },
  { type: 'subteam', id: SUB, teamId: TEAM, name: 'Sub', members: [MEMBER], admins: [] },
  { type: 'lead', userId: ADMIN, id: 'a1', epoch: 1_719_792_000_000, isLead: true },
  { type: 'lead', userId: MEMBER, id: 'm1', epoch: 1_719_792_100_000, isLead: true },
  { type: 'lead', userId: MEMBER, id: 'm2', epoch: 1_719_792_200_000, isLead: true },
];
const lookup: HostLookup = async () => ['93.184.216.34'];
const UNKNOWN_UUID = '01906a3c-4f2e-7a10-8b3c-2d4e5f607182';

interface Case extends InjectOptions {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  url: string;
  /** The status the request is sent to reach: the traffic covers what it says it covers. */
  status: number;
  app?: FastifyInstance;
}

for (const engine of enginesUnderTest())
  describe(`every answer is what docs/openapi.json says [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    const apps: FastifyInstance[] = [];
    let app: FastifyInstance;
    let sunset: FastifyInstance;
    let strict: FastifyInstance;
    let plain: FastifyInstance;
    let requiring: FastifyInstance;
    const keys: Record<string, string> = {};

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, directory);
      const build = async (env: Record<string, string>) => {
        const built = await buildApp({
          config: testConfig(env),
          store,
          hostLookup: lookup,
          metrics: new Metrics(engine),
        });
        apps.push(built);
        return built;
      };
      keys.admin = (await createKey(store, { member: ADMIN, legacyV1: true })).key;
      keys.member = (await createKey(store, { member: MEMBER, legacyV1: true })).key;
      keys.other = (await createKey(store, { member: OTHER_ADMIN, legacyV1: true })).key;
      keys.frozen = await keyFor(store, MEMBER);
      // Its own key: the quota counters are the store's, shared by every app over it.
      keys.quota = (await createKey(store, { member: OTHER_ADMIN, legacyV1: true })).key;
      const brown = await createKey(store, { member: ADMIN, legacyV1: true });
      keys.brown = brown.key;
      const now = Date.now();
      await store.retirement.addBrownout({
        startsAt: now - 60_000,
        endsAt: now + 3_600_000,
        keyIds: [brown.id],
        createdAt: now,
      });
      app = await build({ LEADLINE_METRICS_TOKEN: TOKEN });
      sunset = await build({ LEADLINE_V1_SUNSET_AT: '2026-02-01T00:00:00Z' });
      strict = await build({ LEADLINE_RATE_LIMIT: '1', LEADLINE_AUTH_FAILURE_LIMIT: '1' });
      plain = await build({});
      requiring = await build({ LEADLINE_REQUIRE_IF_MATCH: 'true' });
    });
    after(async () => {
      for (const a of apps) await a.close();
      await made.cleanup();
    });

    it('answers every documented operation, and its errors, as the document says', async (t) => {
      const answers = new OpenApiAnswers(doc);
      const bad: string[] = [];
      let sent = 0;
      const send = async (c: Case) => {
        const { app: target = app, status, ...request } = c;
        const res = await target.inject(request);
        sent++;
        if (res.statusCode !== status)
          bad.push(
            `${c.method} ${c.url}: sent for ${status}, answered ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
        bad.push(
          ...answers.violations({
            method: c.method,
            url: c.url,
            statusCode: res.statusCode,
            headers: res.headers,
            body: res.body,
          }),
        );
        return res;
      };
      /** The case, and as HEAD when it is a GET. */
      const both = async (c: Case) => {
        const res = await send(c);
        if (c.method === 'GET') await send({ ...c, method: 'HEAD' });
        return res;
      };
      const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
      const json = (key: string, body: unknown, method: Case['method'] = 'POST') => ({
        method,
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });

      // v2: every operation, its refusals, the bare key, other methods.
      const lead = await send({
        url: '/api/pub/v2/leads',
        ...json(keys.member!, {
          leadSource: 'PROFILE_CONNECTION',
          captureDatetime: '2024-07-01T12:10:00Z',
          systemFields: { fullName: 'Ada Lovelace', email: 'ada@example.com' },
        }),
        headers: { ...json(keys.member!, {}).headers, 'idempotency-key': 'contract-1' },
        status: 201,
      });
      const leadId = (JSON.parse(lead.body) as { data: { leadId: string } }).data.leadId;
      await send({
        url: '/api/pub/v2/leads',
        ...json(keys.member!, {
          leadSource: 'PROFILE_CONNECTION',
          captureDatetime: '2024-07-01T12:10:00Z',
          systemFields: { fullName: 'Ada Lovelace', email: 'ada@example.com' },
        }),
        headers: { ...json(keys.member!, {}).headers, 'idempotency-key': 'contract-1' },
        status: 201,
      });
      await send({
        url: '/api/pub/v2/leads',
        ...json(keys.member!, { leadSource: 'PROFILE_CONNECTION', systemFields: {} }),
        headers: { ...json(keys.member!, {}).headers, 'idempotency-key': 'contract-1' },
        status: 400,
      });
      await send({
        url: '/api/pub/v2/leads',
        ...json(keys.member!, {
          leadSource: 'PROFILE_CONNECTION',
          captureDatetime: '2024-07-01T12:11:00Z',
          systemFields: { fullName: 'Other' },
        }),
        headers: { ...json(keys.member!, {}).headers, 'idempotency-key': 'contract-1' },
        status: 409,
      });
      await send({ url: '/api/pub/v2/leads', ...json(keys.member!, { nope: 1 }), status: 400 });
      await send({ url: '/api/pub/v2/leads', ...json('wrong', {}), status: 401 });
      await send({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: { ...bearer(keys.member!), 'content-type': 'text/plain' },
        payload: 'x',
        status: 415,
      });
      await send({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: { ...bearer(keys.member!), 'content-type': 'application/json' },
        payload: '{"leadSource":',
        status: 400,
      });
      await send({
        method: 'POST',
        url: '/api/pub/v2/leads',
        headers: { ...bearer(keys.member!), 'content-type': 'application/json' },
        payload: JSON.stringify({ note: 'x'.repeat(70 * 1024) }),
        status: 413,
      });
      const search = { filters: { teamId: TEAM }, limit: 2 };
      await send({ url: '/api/pub/v2/leads/search', ...json(keys.admin!, search), status: 200 });
      await send({
        url: '/api/pub/v2/leads/search',
        ...json(keys.admin!, search),
        headers: { authorization: keys.admin!, 'content-type': 'application/json' },
        status: 200,
      });
      await send({
        url: '/api/pub/v2/leads/search',
        ...json(keys.member!, { filters: { teamId: TEAM }, sort: { field: 'name' } }),
        status: 400,
      });
      await send({ url: '/api/pub/v2/leads/search', ...json(keys.member!, search), status: 403 });
      await send({
        url: '/api/pub/v2/leads/search',
        ...json(keys.admin!, { filters: { subteamIds: [999] } }),
        status: 404,
      });
      await send({
        url: '/api/pub/v2/leads/search',
        ...json(keys.admin!, { filters: { teamId: 1 }, limit: 0 }),
        status: 400,
      });
      await send({ method: 'POST', url: '/api/pub/v2/leads/search', status: 401 });
      for (const [url, ok] of [
        ['/api/pub/v2/leads/changes?limit=2', 200],
        ['/api/pub/v2/leads/changes?limit=0', 400],
        ['/api/pub/v2/leads/changes?cursor=not-a-cursor', 400],
        ['/api/pub/v2/leads/changes?limit=2&wait=0', 200],
        ['/api/pub/v2/leads/changes?wait=forever', 400],
        [`/api/pub/v2/leads/${leadId}`, 200],
        [`/api/pub/v2/leads/${UNKNOWN_UUID}`, 404],
        ['/api/pub/v2/leads/not-a-uuid', 404],
        ['/api/pub/v2/me', 200],
        ['/api/pub/v2/me/deprecations?days=7', 200],
        ['/api/pub/v2/me/deprecations?days=0', 400],
      ] as const) {
        await both({ method: 'GET', url, headers: bearer(keys.member!), status: ok });
        await both({ method: 'GET', url, status: 401 });
      }
      await both({
        method: 'GET',
        url: '/api/pub/v2/me',
        headers: { authorization: keys.member! },
        status: 200,
      });
      await both({
        method: 'GET',
        url: '/api/pub/v2/me/deprecations?scope=team',
        headers: bearer(keys.member!),
        status: 403,
      });
      await both({
        method: 'GET',
        url: '/api/pub/v2/me/deprecations?scope=team',
        headers: bearer(keys.admin!),
        status: 200,
      });
      for (const url of [
        '/api/pub/v2/leads',
        '/api/pub/v2/leads/search',
        '/api/pub/v2/me',
        `/api/pub/v2/leads/${leadId}`,
      ])
        for (const method of ['PUT', 'DELETE', 'OPTIONS'] as const)
          await send({ method, url, headers: bearer(keys.member!), status: 405 });
      await send({ method: 'GET', url: '/api/pub/v2/leads/search', status: 405 });
      await send({ method: 'PATCH', url: '/api/pub/v2/leads/changes', status: 405 });

      // Lead changes: update (merge patch, If-Match), merge, duplicates, and their refusals.
      const patch = (key: string, id: string, body: unknown, headers: Record<string, string> = {}) => ({
        method: 'PATCH' as const,
        url: `/api/pub/v2/leads/${id}`,
        headers: { ...bearer(key), 'content-type': 'application/merge-patch+json', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const updated = await send({
        ...patch(keys.member!, leadId, { systemFields: { jobTitle: 'Analyst' } }),
        status: 200,
      });
      const etag = String(updated.headers.etag);
      await send({
        ...patch(keys.member!, leadId, { systemFields: { note: 'n' } }, { 'if-match': etag }),
        status: 200,
      });
      await send({
        ...patch(keys.member!, leadId, { systemFields: { note: 'm' } }, { 'if-match': etag }),
        status: 412,
      });
      await send({
        ...patch(keys.member!, leadId, { systemFields: { note: 'm' } }, { 'if-match': 'W/"1"' }),
        status: 400,
      });
      await send({ ...patch(keys.member!, leadId, { systemFields: { nope: 1 } }), status: 400 });
      await send({ ...patch(keys.member!, leadId, '{"systemFields":'), status: 400 });
      await send({ ...patch(keys.member!, UNKNOWN_UUID, {}), status: 404 });
      await send({ ...patch('wrong', leadId, {}), status: 401 });
      await send({
        ...patch(keys.member!, leadId, {}),
        headers: { ...bearer(keys.member!), 'content-type': 'text/plain' },
        status: 415,
      });
      await send({
        app: requiring,
        ...patch(keys.member!, leadId, { systemFields: { note: 'x' } }),
        status: 428,
      });
      const other = await send({
        url: '/api/pub/v2/leads',
        ...json(keys.member!, {
          leadSource: 'PROFILE_CONNECTION',
          captureDatetime: '2024-07-01T12:12:00Z',
          systemFields: { fullName: 'Ada L.', email: 'ADA@example.com ' },
        }),
        status: 201,
      });
      const otherId = (JSON.parse(other.body) as { data: { leadId: string } }).data.leadId;
      await send({ url: '/api/pub/v2/leads/duplicates', ...json(keys.member!, {}), status: 200 });
      await send({ url: '/api/pub/v2/leads/duplicates', ...json(keys.member!, { limit: 0 }), status: 400 });
      await send({ url: '/api/pub/v2/leads/duplicates', ...json('wrong', {}), status: 401 });
      await send({
        url: `/api/pub/v2/leads/${leadId}/merge`,
        ...json(keys.member!, { mergeLeadIds: [leadId] }),
        status: 400,
      });
      await send({
        url: `/api/pub/v2/leads/${leadId}/merge`,
        ...json(keys.member!, { mergeLeadIds: [UNKNOWN_UUID] }),
        status: 404,
      });
      await send({
        url: `/api/pub/v2/leads/${leadId}/merge`,
        ...json(keys.member!, { mergeLeadIds: [otherId] }),
        status: 200,
      });
      await send({
        url: `/api/pub/v2/leads/${otherId}/merge`,
        ...json(keys.member!, { mergeLeadIds: [leadId] }),
        status: 410,
      });
      await both({
        method: 'GET',
        url: `/api/pub/v2/leads/${otherId}`,
        headers: bearer(keys.member!),
        status: 410,
      });
      await send({ ...patch(keys.member!, otherId, {}), status: 410 });
      // Subject access (docs/privacy.md): the person of the two leads just merged, both listed.
      const access = await send({
        url: '/api/pub/v2/subject-access',
        ...json(keys.member!, { email: ' Ada@Example.com' }),
        status: 200,
      });
      assert.deepEqual(
        (JSON.parse(access.body) as { data: { leads: { mergedInto: string | null }[] } }).data.leads.map(
          (l) => l.mergedInto,
        ),
        [null, leadId],
      );
      await send({
        url: '/api/pub/v2/subject-access',
        ...json(keys.other!, { email: 'ada@example.com' }),
        status: 200,
      });
      await send({
        url: '/api/pub/v2/subject-access',
        ...json(keys.member!, { email: 'not-an-address' }),
        status: 400,
      });
      await send({
        url: '/api/pub/v2/subject-access',
        ...json(keys.member!, { mail: 'a@b.test' }),
        status: 400,
      });
      await send({ url: '/api/pub/v2/subject-access', ...json('wrong', { email: 'a@b.test' }), status: 401 });
      await send({
        method: 'POST',
        url: '/api/pub/v2/subject-access',
        headers: { ...bearer(keys.member!), 'content-type': 'text/plain' },
        payload: 'ada@example.com',
        status: 415,
      });
      await send({
        method: 'POST',
        url: '/api/pub/v2/subject-access',
        headers: { ...bearer(keys.member!), 'content-type': 'application/json' },
        payload: JSON.stringify({ email: `${'x'.repeat(70 * 1024)}@example.com` }),
        status: 413,
      });
      await send({ method: 'GET', url: '/api/pub/v2/subject-access?email=ada@example.com', status: 405 });
      // The audit log (docs/privacy.md "Audit log"): the team's records, a page or NDJSON.
      const audit = await both({
        method: 'GET',
        url: '/api/pub/v2/audit?limit=1',
        headers: bearer(keys.admin!),
        status: 200,
      });
      const next = (JSON.parse(audit.body) as { data: { nextCursor: string | null } }).data.nextCursor;
      assert.ok(next !== null, 'the actions above left more than one record');
      await send({
        method: 'GET',
        url: `/api/pub/v2/audit?limit=1&cursor=${encodeURIComponent(next)}`,
        headers: bearer(keys.admin!),
        status: 200,
      });
      await both({
        method: 'GET',
        url: '/api/pub/v2/audit?format=ndjson&action=lead.merged',
        headers: bearer(keys.admin!),
        status: 200,
      });
      await send({
        method: 'GET',
        url: '/api/pub/v2/audit?limit=0',
        headers: bearer(keys.admin!),
        status: 400,
      });
      await send({ method: 'GET', url: '/api/pub/v2/audit', headers: bearer(keys.member!), status: 403 });
      await send({ method: 'GET', url: '/api/pub/v2/audit', headers: bearer('wrong'), status: 401 });
      await send({ method: 'DELETE', url: '/api/pub/v2/audit', headers: bearer(keys.admin!), status: 405 });
      // The event log (docs/v2.md "Events"): every event of the leads the key may read.
      const events = await both({
        method: 'GET',
        url: '/api/pub/v2/events?limit=1&types=lead.created,lead.updated',
        headers: bearer(keys.admin!),
        status: 200,
      });
      const eventsNext = (JSON.parse(events.body) as { data: { pollCursor: string } }).data.pollCursor;
      await send({
        method: 'GET',
        url: `/api/pub/v2/events?types=lead.created&cursor=${encodeURIComponent(eventsNext)}`,
        headers: bearer(keys.admin!),
        status: 400,
      });
      await send({ method: 'GET', url: '/api/pub/v2/events', headers: bearer(keys.member!), status: 200 });
      await send({
        method: 'GET',
        url: '/api/pub/v2/events?types=lead.nothing',
        headers: bearer(keys.admin!),
        status: 400,
      });
      await send({ method: 'GET', url: '/api/pub/v2/events', headers: bearer('wrong'), status: 401 });
      await send({ method: 'POST', url: '/api/pub/v2/events', headers: bearer(keys.admin!), status: 405 });
      await send({
        method: 'GET',
        url: `/api/pub/v2/leads/${leadId}/merge`,
        headers: bearer(keys.member!),
        status: 405,
      });
      await send({
        method: 'GET',
        url: '/api/pub/v2/leads/duplicates',
        headers: bearer(keys.member!),
        status: 405,
      });

      // Webhook endpoints: the whole life of one, and every refusal.
      const hooks = '/api/pub/v2/webhooks';
      const created = await send({
        url: hooks,
        ...json(keys.admin!, { url: 'https://crm.example.com/hooks', eventTypes: ['lead.created'] }),
        status: 201,
      });
      const endpointId = (JSON.parse(created.body) as { data: { id: string } }).data.id;
      const one = `${hooks}/${endpointId}`;
      await send({ url: hooks, ...json(keys.admin!, { url: 'ftp://x', eventTypes: [] }), status: 400 });
      await send({ url: hooks, ...json(keys.member!, { url: 'https://crm.example.com/h' }), status: 403 });
      await send({ url: hooks, ...json('nope', {}), status: 401 });
      await both({ method: 'GET', url: hooks, headers: bearer(keys.admin!), status: 200 });
      await both({ method: 'GET', url: hooks, headers: bearer(keys.member!), status: 403 });
      await both({ method: 'GET', url: one, headers: bearer(keys.admin!), status: 200 });
      await both({ method: 'GET', url: one, headers: bearer(keys.other!), status: 404 });
      await both({
        method: 'GET',
        url: `${hooks}/${UNKNOWN_UUID}`,
        headers: bearer(keys.admin!),
        status: 404,
      });
      await send({ url: one, ...json(keys.admin!, { enabled: false }, 'PATCH'), status: 200 });
      // Issue 39: the change events and the previous values, at registration and by PATCH.
      const changes = ['lead.created', 'lead.updated', 'lead.merged'];
      await send({
        url: hooks,
        ...json(keys.admin!, {
          url: 'https://crm.example.com/changes',
          eventTypes: changes,
          includePrevious: true,
        }),
        status: 201,
      });
      await send({
        url: one,
        ...json(keys.admin!, { eventTypes: changes, includePrevious: true }, 'PATCH'),
        status: 200,
      });
      await send({ url: one, ...json(keys.admin!, { includePrevious: false }, 'PATCH'), status: 200 });
      await send({ url: one, ...json(keys.admin!, { includePrevious: 'yes' }, 'PATCH'), status: 400 });
      await send({
        url: hooks,
        ...json(keys.admin!, { url: 'https://crm.example.com/x', eventTypes: ['lead.deleted'] }),
        status: 400,
      });
      await send({ url: one, ...json(keys.admin!, { enabled: 'no' }, 'PATCH'), status: 400 });
      await send({ url: one, ...json(keys.other!, { enabled: true }, 'PATCH'), status: 404 });
      await send({ url: one, ...json(keys.admin!, { enabled: true }, 'PATCH'), status: 200 });
      await send({ method: 'POST', url: `${one}/rotate-secret`, headers: bearer(keys.admin!), status: 200 });
      await send({ method: 'POST', url: `${one}/rotate-secret`, headers: bearer(keys.member!), status: 403 });
      await send({
        method: 'POST',
        url: `${hooks}/${UNKNOWN_UUID}/rotate-secret`,
        headers: bearer(keys.admin!),
        status: 404,
      });
      await send({ method: 'POST', url: `${one}/test`, headers: bearer(keys.admin!), status: 202 });
      await send({ method: 'POST', url: `${one}/test`, status: 401 });
      await send({
        method: 'POST',
        url: `${hooks}/${UNKNOWN_UUID}/test`,
        headers: bearer(keys.admin!),
        status: 404,
      });
      // Issue 41: recover and the delivery history; thin payloads.
      await send({
        url: `${one}/recover`,
        ...json(keys.admin!, { since: '2026-01-01T00:00:00Z' }),
        status: 202,
      });
      await send({ url: `${one}/recover`, ...json(keys.admin!, { since: 'last week' }), status: 400 });
      await send({
        url: `${one}/recover`,
        ...json(keys.member!, { since: '2026-01-01T00:00:00Z' }),
        status: 403,
      });
      await send({
        url: `${hooks}/${UNKNOWN_UUID}/recover`,
        ...json(keys.admin!, { since: '2026-01-01T00:00:00Z' }),
        status: 404,
      });
      await both({
        method: 'GET',
        url: `${one}/deliveries?limit=2`,
        headers: bearer(keys.admin!),
        status: 200,
      });
      await both({
        method: 'GET',
        url: `${one}/deliveries?state=failed`,
        headers: bearer(keys.admin!),
        status: 200,
      });
      await send({
        method: 'GET',
        url: `${one}/deliveries?state=gone`,
        headers: bearer(keys.admin!),
        status: 400,
      });
      await send({ method: 'GET', url: `${one}/deliveries`, headers: bearer(keys.other!), status: 404 });
      await send({ url: one, ...json(keys.admin!, { payload: 'thin' }, 'PATCH'), status: 200 });
      await send({ url: one, ...json(keys.admin!, { payload: 'slim' }, 'PATCH'), status: 400 });
      await send({ url: one, ...json(keys.admin!, { payload: 'full' }, 'PATCH'), status: 200 });
      for (const method of ['PUT', 'POST'] as const)
        await send({ method, url: one, headers: bearer(keys.admin!), status: 405 });
      await send({ method: 'GET', url: `${one}/test`, headers: bearer(keys.admin!), status: 405 });
      await send({ method: 'PUT', url: hooks, headers: bearer(keys.admin!), status: 405 });
      const doomed = await send({
        url: hooks,
        ...json(keys.admin!, { url: 'https://crm.example.com/doomed', eventTypes: ['lead.created'] }),
        status: 201,
      });
      const doomedUrl = `${hooks}/${(JSON.parse(doomed.body) as { data: { id: string } }).data.id}`;
      await send({ method: 'DELETE', url: doomedUrl, headers: bearer(keys.member!), status: 403 });
      await send({ method: 'DELETE', url: doomedUrl, headers: bearer(keys.admin!), status: 204 });
      await send({ method: 'DELETE', url: doomedUrl, headers: bearer(keys.admin!), status: 404 });

      // Erasure (docs/privacy.md): an address no fixture lead holds, so later requests are unchanged.
      const erasures = '/api/pub/v2/erasures';
      const erased = await send({
        url: erasures,
        ...json(keys.admin!, { email: 'erase-me@contract.test' }),
        status: 201,
      });
      const receiptUrl = `${erasures}/${(JSON.parse(erased.body) as { data: { erasureId: string } }).data.erasureId}`;
      await send({ url: erasures, ...json(keys.admin!, { leadIds: [UNKNOWN_UUID] }), status: 400 });
      // The erased address is suppressed: creating or updating a lead with it is a 422.
      await send({
        url: '/api/pub/v2/leads',
        ...json(keys.admin!, {
          leadSource: 'MANUAL',
          captureDatetime: new Date().toISOString(),
          systemFields: { email: 'Erase-Me@contract.test' },
        }),
        status: 422,
      });
      await send({
        ...patch(keys.member!, leadId, { systemFields: { email: 'erase-me@contract.test' } }),
        status: 422,
      });
      await send({ url: erasures, ...json(keys.admin!, { email: 'x', leadIds: [] }), status: 400 });
      await send({ url: erasures, ...json(keys.member!, { email: 'erase-me@contract.test' }), status: 403 });
      await send({ url: erasures, ...json('nope', {}), status: 401 });
      await send({ method: 'GET', url: erasures, headers: bearer(keys.admin!), status: 405 });
      await both({ method: 'GET', url: receiptUrl, headers: bearer(keys.admin!), status: 200 });
      await both({ method: 'GET', url: receiptUrl, headers: bearer(keys.other!), status: 404 });
      await both({ method: 'GET', url: receiptUrl, headers: bearer(keys.member!), status: 403 });
      await send({ method: 'DELETE', url: receiptUrl, headers: bearer(keys.admin!), status: 405 });

      // v1: the five operations, their parameters, ETags, the retirement's refusals.
      const range = 'start=1719792000000&end=1719878400000';
      const v1: [string, string, string][] = [
        ['getLastLead', '', keys.member!],
        ['getLastLeadTeam', '', keys.admin!],
        ['getLastLeadSubTeam', `subTeamId=${SUB}`, keys.admin!],
        ['getLeadsTimeRange', range, keys.member!],
        ['getLeadsTimeRangeForTeam', range, keys.admin!],
      ];
      for (const [name, query, key] of v1) {
        const url = `/api/pub/leads/${name}${query === '' ? '' : `?${query}`}`;
        const ok = await both({ method: 'GET', url, headers: bearer(key), status: 200 });
        await both({ method: 'GET', url, headers: { authorization: key }, status: 200 });
        await both({ method: 'GET', url, status: 401 });
        await both({
          method: 'GET',
          url,
          headers: bearer(keys.frozen!),
          status: name.includes('Team') ? 403 : 403,
        });
        await both({ method: 'GET', url, headers: bearer(keys.brown!), status: 410 });
        await both({ method: 'GET', url, headers: bearer(key), app: sunset, status: 410 });
        await send({ method: 'POST', url, headers: bearer(key), status: 405 });
        await send({ method: 'DELETE', url, headers: bearer(key), status: 405 });
        if (ok.headers.etag !== undefined)
          await both({
            method: 'GET',
            url,
            headers: { ...bearer(key), 'if-none-match': String(ok.headers.etag) },
            status: 304,
          });
      }
      for (const [name, query, status] of [
        ['getLastLeadTeam', '', 403],
        ['getLastLeadSubTeam', `subTeamId=${SUB}`, 403],
        ['getLeadsTimeRangeForTeam', range, 403],
      ] as const)
        await both({
          method: 'GET',
          url: `/api/pub/leads/${name}?${query}`,
          headers: bearer(keys.member!),
          status,
        });
      for (const [name, query, status] of [
        ['getLastLeadSubTeam', 'subTeamId=x', 400],
        ['getLastLeadSubTeam', '', 400],
        ['getLastLeadSubTeam', 'subTeamId=999', 404],
        ['getLeadsTimeRange', 'start=-1', 400],
        ['getLeadsTimeRange', 'start=5&end=1', 400],
        ['getLeadsTimeRangeForTeam', '', 400],
      ] as const)
        await both({
          method: 'GET',
          url: `/api/pub/leads/${name}?${query}`,
          headers: bearer(keys.admin!),
          status,
        });

      // Quotas: a key's second call in the window, a client's second bad key.
      await send({
        method: 'GET',
        url: '/api/pub/v2/me',
        headers: bearer(keys.quota!),
        app: strict,
        status: 200,
      });
      await send({
        method: 'GET',
        url: '/api/pub/v2/me',
        headers: bearer(keys.quota!),
        app: strict,
        status: 429,
      });
      await send({
        method: 'GET',
        url: '/api/pub/leads/getLastLead',
        headers: bearer(keys.quota!),
        app: strict,
        status: 429,
      });
      await send({
        method: 'GET',
        url: '/api/admin/v1/report',
        headers: bearer(keys.quota!),
        app: strict,
        status: 429,
      });
      await send({
        method: 'GET',
        url: '/api/pub/v2/me',
        headers: bearer('bad-1'),
        app: strict,
        status: 401,
      });
      await send({
        method: 'GET',
        url: '/api/pub/v2/me',
        headers: bearer('bad-2'),
        app: strict,
        status: 429,
      });

      // The admin report.
      for (const [url, key, status] of [
        ['/api/admin/v1/report', keys.admin!, 200],
        ['/api/admin/v1/report?days=7', keys.admin!, 200],
        ['/api/admin/v1/report?days=0', keys.admin!, 400],
        ['/api/admin/v1/report', keys.member!, 403],
        ['/api/admin/v1/report', 'nope', 401],
      ] as const)
        await both({ method: 'GET', url, headers: bearer(key), status });

      // Service: health, readiness, metrics with and without a token, pages, problem types.
      await both({ method: 'GET', url: '/healthz', status: 200 });
      await both({ method: 'GET', url: '/readyz', status: 200 });
      await both({ method: 'GET', url: '/metrics', headers: bearer(TOKEN), status: 200 });
      await both({ method: 'GET', url: '/metrics', headers: bearer('wrong-token'), status: 401 });
      await both({ method: 'GET', url: '/metrics', status: 401 });
      await both({ method: 'GET', url: '/metrics', headers: bearer(TOKEN), app: plain, status: 404 });
      for (const [url, status] of [
        ['/openapi.json', 200],
        ['/', 200],
        ['/docs', 200],
        ['/docs/v2', 200],
        ['/docs/v2.md', 200],
        ['/docs/no-such-page', 404],
        ['/problems/not-found', 200],
        ['/problems/rate-limited', 200],
        ['/problems/no-such-problem', 404],
        ['/assets/leadline.css', 200],
        ['/assets/reference.css', 200],
        ['/assets/reference.js', 200],
        ['/assets/redoc.standalone.js', 200],
        ['/assets/no-such-file.css', 404],
        ['/favicon.ico', 200],
        ['/admin', 301],
      ] as const)
        await both({ method: 'GET', url, status });
      await both({ method: 'GET', url: '/docs/v2', headers: { accept: 'text/markdown' }, status: 200 });

      // The console: no session, a team admin's, the operator's.
      const now = Date.now();
      const admin: Signed = await signIn(app, store, ADMIN, now);
      const operator: Signed = await signIn(app, store, null, now);
      const page = (s: Signed | null, url: string, status: number, method: Case['method'] = 'GET') =>
        both({ method, url, headers: s === null ? {} : { cookie: s.cookie }, status });
      const post = (s: Signed | null, url: string, fields: Record<string, string>, status: number) =>
        send({
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(s === null ? {} : { cookie: s.cookie }),
          },
          payload: new URLSearchParams(fields).toString(),
          status,
        });
      const endpoint = await endpointFor(store, TEAM);
      const sentTest = await store.deliveries.sendTest({ teamId: TEAM }, endpoint.id, now);
      assert.ok(sentTest !== null);
      const [delivery] = (await store.deliveries.deliveries({ teamId: TEAM }, endpoint.id, 5)) ?? [];
      assert.ok(delivery !== undefined);
      const link = await createSignInLink(store, ADMIN, now);
      await page(null, '/console', 303);
      await page(null, `/console/sign-in/${link.token}`, 200);
      await page(null, `/console/sign-in/${'0'.repeat(64)}`, 200);
      await post(null, '/console/sign-in', { link: 'not-a-link' }, 400);
      for (const url of [
        '/console/keys',
        '/console/v1',
        '/console/v1.csv',
        '/console/webhooks',
        '/console/brownouts',
        '/console/privacy',
        '/console/leads',
        `/console/leads/${leadId}`,
        '/console/audit',
      ])
        await page(null, url, 401);
      for (const url of [
        '/console/keys',
        '/console/v1',
        '/console/v1?days=7',
        '/console/v1.csv',
        '/console/webhooks',
        `/console/webhooks/${endpoint.id}`,
        `/console/webhooks/${endpoint.id}?limit=5`,
        '/console/leads',
        '/console/leads?email=Ada%40Example.com',
        `/console/leads/${leadId}`,
        '/console/audit',
        '/console/audit?before=1',
      ])
        await page(admin, url, 200);
      await page(admin, `/console/webhooks/${UNKNOWN_UUID}`, 404);
      await page(admin, `/console/leads/${UNKNOWN_UUID}`, 404);
      await page(admin, `/console/leads?email=${'a'.repeat(321)}`, 400);
      await page(operator, `/console/leads/${leadId}?team=${TEAM}`, 200);
      await page(admin, '/console/privacy', 200);
      await page(operator, '/console/privacy', 200);
      await post(admin, '/console/privacy/retention', { _csrf: admin.csrf, days: '400' }, 200);
      await post(admin, '/console/privacy/retention', { _csrf: admin.csrf, days: 'soon' }, 400);
      await post(admin, '/console/privacy/retention', { _csrf: admin.csrf, clear: 'yes' }, 200);
      await post(admin, '/console/privacy/erase', { _csrf: admin.csrf, email: 'nobody@contract.test' }, 400);
      await post(
        admin,
        '/console/privacy/erase',
        { _csrf: admin.csrf, email: 'nobody@contract.test', confirm: 'yes' },
        200,
      );
      await page(admin, '/console/brownouts', 403);
      await page(operator, '/console/brownouts', 200);
      await page(operator, `/console/keys?team=${TEAM}`, 200);
      const mine = await createKey(store, { member: ADMIN });
      await page(admin, `/console/keys/${mine.id}/revoke`, 200);
      await page(admin, '/console/keys/999999/revoke', 404);
      await page(admin, `/console/keys/${mine.id}/health`, 200);
      await page(admin, '/console/keys/999999/health', 404);
      await post(admin, '/console/keys', { member: String(ADMIN), label: 'contract' }, 403);
      await post(
        admin,
        '/console/keys',
        { _csrf: admin.csrf, member: String(ADMIN), label: 'contract' },
        200,
      );
      await post(admin, `/console/keys/${mine.id}/revoke`, { _csrf: admin.csrf }, 303);
      await post(admin, `/console/keys/${mine.id}/legacy-v1`, { _csrf: admin.csrf, grant: 'yes' }, 403);
      await post(
        operator,
        `/console/keys/${mine.id}/legacy-v1?team=${TEAM}`,
        { _csrf: operator.csrf, grant: 'yes' },
        303,
      );
      await post(
        admin,
        `/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay`,
        { _csrf: admin.csrf },
        409,
      );
      await post(
        admin,
        `/console/webhooks/${endpoint.id}/deliveries/999999/replay`,
        { _csrf: admin.csrf },
        404,
      );
      const starts = new Date(now + 86_400_000).toISOString().slice(0, 16);
      const ends = new Date(now + 90_000_000).toISOString().slice(0, 16);
      await post(operator, '/console/brownouts', { _csrf: operator.csrf, starts, ends }, 200);
      await post(operator, '/console/brownouts', { _csrf: operator.csrf, starts: 'soon', ends }, 400);
      const [scheduled] = await store.retirement.brownouts();
      assert.ok(scheduled !== undefined);
      await post(operator, `/console/brownouts/${scheduled.id}/remove`, { _csrf: operator.csrf }, 303);
      await post(admin, `/console/brownouts/${scheduled.id}/remove`, { _csrf: admin.csrf }, 403);
      for (const file of ['console.js', 'console.css', 'uplot.js', 'uplot.css'])
        await page(null, `/console/assets/${file}`, 200);
      await page(null, '/console/assets/no-such-file.js', 404);
      await post(admin, '/console/sign-out', { _csrf: admin.csrf }, 200);
      await page(admin, '/console/keys', 401);

      const missed = answers.operations().filter((op) => !answers.exercised.has(op));
      assert.deepEqual(missed, [], 'documented operations no request reached');
      t.diagnostic(`${sent} requests, ${answers.exercised.size} operations`);
      assert.ok(sent >= 200, `requests sent: ${sent}`);
      assert.deepEqual(bad, [], `${bad.length} answers outside the document`);
    });
  });
