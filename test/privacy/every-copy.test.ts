import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import { reclaimAfterErasure } from '../../src/privacy/erase.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { endpointFor } from '../webhooks/endpoints.js';
import { Receiver } from '../webhooks/receiver.js';

/**
 * Issue 40's "every copy" bar (docs/privacy.md "What erasure removes", "Physically gone"): a
 * person's e-mail and name enter through an import, a v2 creation, an update, webhook deliveries
 * to a receiver that echoes each payload back as its answer, and an idempotent retry; after
 * `POST /api/pub/v2/erasures` a scan of every table — and on SQLite of the database file's and
 * the WAL's raw bytes, on PostgreSQL of a `pg_dump` of the store's schema — finds none of them.
 * Another person's lead is intact; the receipt's counts are what went.
 */
const TEAM = 4001;
const ADMIN = 40011;
const EMAIL = 'zelda.quartermaine@every.test';
const FIRST = 'Zelda';
const LAST = 'Quartermaine';
const NEEDLES = [EMAIL, 'zelda.quartermaine', FIRST, LAST, 'Hyrule-Castle-7'];
const KEEP = { name: 'Ottokar Keepwell', email: 'ottokar@keep.test' };

/** Every row of every table, as text (SQLite: sqlite_master's tables; PostgreSQL: a pg_dump). */
async function storeText(engine: string, made: EngineStore): Promise<string> {
  if (engine === 'postgres') {
    const url = new URL(made.location.databaseUrl!);
    const schema = url.searchParams.get('search_path')!;
    url.search = '';
    return execFileSync('/usr/bin/pg_dump', ['--data-only', '--schema', schema, url.toString()], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(made.location.dbPath, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all() as string[];
    assert.ok(tables.includes('webhook_attempts') && tables.includes('idempotency_keys'), tables.join());
    return tables
      .map((t) => `${t}\n${JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).raw(true).all())}`)
      .join('\n');
  } finally {
    db.close();
  }
}

/** The raw bytes of the SQLite file and its WAL (both, when the WAL is there). */
function rawBytes(path: string): Buffer {
  return Buffer.concat([
    readFileSync(path),
    existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0),
  ]);
}

const occurrences = (text: string, needle: string): number =>
  text.toLowerCase().split(needle.toLowerCase()).length - 1;

for (const engine of enginesUnderTest()) {
  describe(`erasure reaches every copy [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let loop: DeliveryLoop;
    let receiver: Receiver;

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Every copy' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@every.test', role: 'admin', pid: 'p' },
      ]);
      const config = loadWebhookConfig({
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '10',
      });
      app = await buildApp({ config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }), store });
      key = await keyFor(store, ADMIN);
      receiver = await Receiver.start(['whsec_test']);
      receiver.echo = true;
      await endpointFor(store, TEAM, {
        url: receiver.url,
        eventTypes: ['lead.created', 'lead.updated', 'lead.erased'],
        includePrevious: true,
        createdAt: Date.now() - 60_000,
      });
      loop = new DeliveryLoop(store, config, pino({ level: 'silent' }), new Sender(config, 4), Date.now);
      loop.start();
    });
    after(async () => {
      await loop.stop();
      await receiver.close();
      await app.close();
      await made.cleanup();
    });

    it('after POST /erasures no table, file or dump holds the e-mail or the name', async () => {
      // 1. Import: the person, and someone else who must stay.
      await load(store, [
        {
          type: 'lead',
          userId: ADMIN,
          id: 'imported',
          epoch: 1_760_000_000_000,
          isLead: true,
          name: `${FIRST} ${LAST}`,
          email: EMAIL,
          note: 'Hyrule-Castle-7',
        },
        { type: 'lead', userId: ADMIN, id: 'keep', epoch: 1_760_000_000_001, isLead: true, ...KEEP },
      ]);
      // 2. v2 creation with an Idempotency-Key, and 3. its idempotent retry.
      const body = {
        leadSource: 'MANUAL',
        captureDatetime: '2026-11-29T07:00:00.000Z',
        systemFields: { firstName: FIRST, lastName: LAST, email: ` ${EMAIL.toUpperCase()}` },
      };
      const headers = { ...auth(key), 'idempotency-key': 'every-copy-1' };
      const created = await app.inject({ method: 'POST', url: '/api/pub/v2/leads', headers, payload: body });
      assert.equal(created.statusCode, 201, created.body);
      const retried = await app.inject({ method: 'POST', url: '/api/pub/v2/leads', headers, payload: body });
      assert.equal(retried.json().data.leadId, created.json().data.leadId);
      // 4. An update of the imported lead (its previous values go into the event).
      const search = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/leads/search',
        headers: auth(key),
        payload: { filters: { teamId: TEAM }, query: [{ fields: ['email'], value: EMAIL, match: 'FUZZY' }] },
      });
      const found = search.json().data.leads as { leadId: string; legacyLeadId: string }[];
      assert.equal(found.length, 2, search.body);
      const imported = found.find((l) => l.legacyLeadId === 'imported')!.leadId;
      const patched = await app.inject({
        method: 'PATCH',
        url: `/api/pub/v2/leads/${imported}`,
        headers: { ...auth(key), 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ systemFields: { jobTitle: `Princess of ${LAST}` } }),
      });
      assert.equal(patched.statusCode, 200, patched.body);
      // 5. Webhook deliveries, answered with their own payload: 3 created + 1 updated, recorded.
      await eventually(async () => assert.equal(receiver.received.length, 4), 15_000);
      await eventually(async () => {
        const text = await storeText(engine, made);
        assert.ok(occurrences(text, `"answer"`) >= 0);
        assert.ok(occurrences(text, EMAIL) >= 4, 'the e-mail is in the store, its events and answers');
      }, 15_000);
      const before = await storeText(engine, made);
      for (const n of NEEDLES) assert.ok(occurrences(before, n) > 0, `${n} is in the store before`);

      const erased = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/erasures',
        headers: auth(key),
        payload: { email: EMAIL },
      });
      assert.equal(erased.statusCode, 201, erased.body);
      const receipt = erased.json().data;
      assert.equal(erased.headers.location, `/api/pub/v2/erasures/${receipt.erasureId}`);
      assert.deepEqual(receipt.counts, {
        leads: 2,
        mergedLeads: 0,
        searchRows: 2,
        webhookEvents: 3, // created ×2, updated
        webhookDeliveries: 3,
        webhookAttempts: 3,
        idempotencyKeys: 1,
      });
      const again = await app.inject({
        url: `/api/pub/v2/erasures/${receipt.erasureId}`,
        headers: auth(key),
      });
      assert.deepEqual(again.json().data, receipt);
      // The lead.erased events go out with the lead ids only (and come back echoed).
      await eventually(
        async () => assert.equal(receiver.received.filter((r) => r.payload.type === 'lead.erased').length, 2),
        15_000,
      );
      for (const r of receiver.received.filter((x) => x.payload.type === 'lead.erased'))
        assert.deepEqual(Object.keys(r.payload.data), ['leadId']);
      await eventually(async () => {
        const text = await storeText(engine, made);
        assert.equal(occurrences(text, '"lead.erased"') >= 2 || engine === 'postgres', true);
      });
      await reclaimAfterErasure(store);

      const after = await storeText(engine, made);
      for (const n of NEEDLES) assert.equal(occurrences(after, n), 0, `${n} left in the store's rows`);
      if (engine === 'sqlite') {
        const raw = rawBytes(made.location.dbPath).toString('latin1');
        for (const n of NEEDLES)
          assert.equal(occurrences(raw, n), 0, `${n} left in the database or WAL bytes`);
      }
      // The other person is intact, found as before.
      assert.ok(occurrences(after, KEEP.email) > 0);
      const kept = await app.inject({
        method: 'POST',
        url: '/api/pub/v2/leads/search',
        headers: auth(key),
        payload: {
          filters: { teamId: TEAM },
          query: [{ fields: ['fullName'], value: KEEP.name, match: 'EXACT' }],
        },
      });
      assert.equal(kept.json().data.leads[0]?.systemFields.email, KEEP.email);
      const gone = await app.inject({ url: `/api/pub/v2/leads/${imported}`, headers: auth(key) });
      assert.equal(gone.statusCode, 404);
    });
  });
}
