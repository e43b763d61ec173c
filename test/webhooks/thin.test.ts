import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import type { Store } from '../../src/store.js';
import { storeArgs } from '../cli/cli.js';
import { oldPostgresStore, oldSqliteStore } from '../storage/old-store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { Receiver } from './receiver.js';

/**
 * Issue 41 §4: an endpoint with `payload: "thin"` receives type, time and ids only — no personal
 * value — while a full endpoint of the same team gets the lead; the thin receiver reads the lead
 * through the API, an ordinary read counted in the usage ledger. Migration 17 adds the column
 * with `full` for every endpoint stored before.
 */
const PATH = '/api/pub/v2/webhooks';
const TEAM = 4111;
const ADMIN = 41111;

/** Personal values of the leads below: none of them may be in a thin body. */
const PERSONAL = [
  'Thinly Veiled',
  'thinly.veiled@person.test',
  '+49 30 1234567',
  'Secret Corp',
  'Chief Secret Officer',
];

for (const engine of enginesUnderTest()) {
  describe(`thin payloads [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let key: string;
    let loop: DeliveryLoop;
    const config = loadWebhookConfig({
      LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      LEADLINE_WEBHOOK_POLL_MS: '10',
    });
    const receivers: Receiver[] = [];

    async function hooked(
      body: object,
    ): Promise<{ r: Receiver; id: string; created: Record<string, unknown> }> {
      const r = await Receiver.start();
      receivers.push(r);
      const res = await app.inject({
        method: 'POST',
        url: PATH,
        headers: auth(key),
        payload: { url: r.url, ...body },
      });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json().data;
      r.secrets = [created.secret];
      return { r, id: created.id, created };
    }

    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Thin' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@thin.test', role: 'admin', pid: 'p' },
      ]);
      app = await buildApp({
        config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_USAGE_FLUSH_MS: '100' }),
        store,
      });
      key = await keyFor(store, ADMIN);
      loop = new DeliveryLoop(
        store,
        config,
        pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2)),
        new Sender(config, 16),
      );
      loop.start();
    });
    after(async () => {
      await loop.stop();
      for (const r of receivers) await r.close();
      await app.close();
      await made.cleanup();
    });

    it('a thin endpoint gets ids, type and time only; a full one on the same team gets the lead', async () => {
      const types = ['lead.created', 'lead.updated', 'lead.merged', 'lead.erased'];
      const thin = await hooked({ payload: 'thin', eventTypes: types, includePrevious: true });
      const full = await hooked({ eventTypes: types });
      assert.equal(thin.created.payload, 'thin');
      assert.equal(full.created.payload, 'full', 'default: full');
      const got = await app.inject({ url: `${PATH}/${thin.id}`, headers: auth(key) });
      assert.equal(got.json().data.payload, 'thin');

      await load(store, [
        {
          type: 'lead',
          userId: ADMIN,
          id: 'thin-1',
          epoch: 1_750_000_000_001,
          isLead: true,
          name: 'Thinly Veiled',
          email: 'thinly.veiled@person.test',
          number: '+49 30 1234567',
          company: 'Secret Corp',
        },
      ]);
      const [fullCreated] = await eventually(async () => {
        assert.equal(full.r.received.length, 1);
        return full.r.received;
      });
      const leadId = fullCreated!.payload.data.leadId as string;
      assert.match(fullCreated!.body, /Thinly Veiled/);
      assert.match(fullCreated!.body, /thinly\.veiled@person\.test/);
      // An update (jobTitle): a thin body names the lead alone.
      const patched = await app.inject({
        method: 'PATCH',
        url: `/api/pub/v2/leads/${leadId}`,
        headers: { ...auth(key), 'content-type': 'application/merge-patch+json' },
        payload: { systemFields: { jobTitle: 'Chief Secret Officer' } },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      await eventually(async () => assert.equal(thin.r.received.length, 2));
      await eventually(async () => assert.equal(full.r.received.length, 2));
      assert.match(full.r.received[1]!.body, /Chief Secret Officer/);

      assert.deepEqual(
        thin.r.received.map((x) => x.payload),
        [
          { type: 'lead.created', timestamp: thin.r.received[0]!.payload.timestamp, data: { leadId } },
          { type: 'lead.updated', timestamp: thin.r.received[1]!.payload.timestamp, data: { leadId } },
        ],
      );
      for (const x of thin.r.received) {
        for (const value of PERSONAL) assert.ok(!x.body.includes(value), `${value} in ${x.body}`);
        assert.deepEqual(Object.keys(JSON.parse(x.body)).sort(), ['data', 'timestamp', 'type']);
      }
      // The same event, the same webhook-id, whichever the form.
      assert.deepEqual(
        thin.r.received.map((x) => x.id),
        full.r.received.map((x) => x.id),
      );

      // The thin receiver reads the lead through the API: an ordinary read, in the usage ledger.
      const day = new Date().toISOString().slice(0, 10);
      const counted = async () =>
        (await store.retirement.usage(day))
          .filter((u) => u.operation === 'getLead' && u.api === 'v2')
          .reduce((n, u) => n + u.count, 0);
      const beforeReads = await counted();
      const read = await app.inject({ url: `/api/pub/v2/leads/${leadId}`, headers: auth(key) });
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().data.systemFields.jobTitle, 'Chief Secret Officer');
      await eventually(async () => assert.equal(await counted(), beforeReads + 1));
      for (const e of [thin, full])
        await app.inject({ method: 'DELETE', url: `${PATH}/${e.id}`, headers: auth(key) });
    });

    it('leadline webhooks add/update --payload thin', () => {
      const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
      const cli = (args: string[]) => {
        const r = spawnSync(
          process.execPath,
          ['--import', 'tsx', main, ...storeArgs(made.location), '--json', 'webhooks', ...args],
          {
            encoding: 'utf8',
            env: { ...process.env, DATABASE_URL: '', LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' },
          },
        );
        return { status: r.status, out: r.stdout, err: r.stderr };
      };
      const add = cli([
        'add',
        '--team',
        String(TEAM),
        '--url',
        'http://127.0.0.1:9/cli',
        '--payload',
        'thin',
      ]);
      assert.equal(add.status, 0, add.err);
      const added = JSON.parse(add.out);
      assert.equal(added.payload, 'thin');
      assert.deepEqual(added.eventTypes, ['lead.created', 'webhook.endpoint.disabled']);
      const full = cli(['update', added.id, '--payload', 'full']);
      assert.equal(full.status, 0, full.err);
      assert.equal(JSON.parse(full.out).payload, 'full');
      const bad = cli(['update', added.id, '--payload', 'slim']);
      assert.notEqual(bad.status, 0);
      assert.match(bad.err, /--payload: "slim" is not one of full, thin/);
      const none = cli(['update', added.id]);
      assert.notEqual(none.status, 0);
      assert.match(none.err, /give --events or --payload/);
      assert.equal(cli(['remove', added.id]).status, 0);
    });

    it('payload is changed with PATCH, and anything but full or thin is a 400', async () => {
      const { id } = await hooked({});
      const patched = await app.inject({
        method: 'PATCH',
        url: `${PATH}/${id}`,
        headers: auth(key),
        payload: { payload: 'thin' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().data.payload, 'thin');
      for (const payload of [{ payload: 'slim' }, { payload: null }]) {
        const bad = await app.inject({ method: 'PATCH', url: `${PATH}/${id}`, headers: auth(key), payload });
        assert.equal(bad.statusCode, 400, bad.body);
        assert.match(bad.json().detail, /payload/);
      }
      const badCreate = await app.inject({
        method: 'POST',
        url: PATH,
        headers: auth(key),
        payload: { url: 'http://127.0.0.1:9/hooks', payload: 'none' },
      });
      assert.equal(badCreate.statusCode, 400);
      await app.inject({ method: 'DELETE', url: `${PATH}/${id}`, headers: auth(key) });
    });
  });
}

/** Migration 17 (thin-payloads): an endpoint stored at version 16 keeps its event types and gets full bodies. */
describe('thin payloads: a store written before migration 17', () => {
  const engines = enginesUnderTest();
  const dir = mkdtempSync(join(tmpdir(), 'leadline-thin-upgrade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const OLD_TEAM = 4119;
  const ENDPOINT = '018bcfe5-6800-7000-8000-0000000000b1';
  const ROW = `INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, created_at, updated_at)
    VALUES ('${ENDPOINT}', ${OLD_TEAM}, 'https://receiver.example/hooks', '["lead.created"]', 'whsec_test', 0, 0)`;

  async function checkUpgraded(store: Store): Promise<void> {
    const report = await store.migrate();
    assert.equal(report.from, 16);
    assert.ok(report.applied.includes('17-thin-payloads'), report.applied.join());
    const e = await store.webhooks.endpoint('operator', ENDPOINT);
    assert.equal(e?.payload, 'full');
    assert.deepEqual(e?.eventTypes, ['lead.created'], 'the stored list stays: no new event type for it');
    const changed = await store.webhooks.updateEndpoint('operator', ENDPOINT, { payload: 'thin' }, 1);
    assert.equal(changed?.payload, 'thin');
  }

  test('SQLite is upgraded in place', { skip: !engines.includes('sqlite') }, async () => {
    await oldSqliteStore(
      join(dir, 'old.db'),
      16,
      (db) => {
        db.prepare("INSERT INTO teams (id, name) VALUES (?, 'Old')").run(OLD_TEAM);
        db.exec(ROW);
      },
      checkUpgraded,
    );
  });

  test('PostgreSQL is upgraded in place', { skip: !engines.includes('postgres') }, async () => {
    await oldPostgresStore(
      16,
      async (sql) => {
        await sql`INSERT INTO teams (id, name) VALUES (${OLD_TEAM}, 'Old')`;
        await sql.unsafe(ROW);
      },
      checkUpgraded,
    );
  });
});
