import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../engines.js';
import { load } from '../helpers.js';

/** Issue 13 §3: `leadline webhooks list|add|remove|deliveries|replay`, `--json`, on each engine. */
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TEAM = 1901;

for (const engine of enginesUnderTest()) {
  describe(`leadline webhooks [${engine}]`, () => {
    let made: EngineStore;
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [{ type: 'team', id: TEAM, name: 'CLI' }]);
    });
    after(async () => made.cleanup());

    const cli = (args: string[], env: Record<string, string> = {}) => {
      const where =
        made.location.databaseUrl === null
          ? ['--db', made.location.dbPath]
          : ['--database-url', made.location.databaseUrl];
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', MAIN, ...where, '--json', 'webhooks', ...args],
        {
          encoding: 'utf8',
          env: { ...process.env, DATABASE_URL: '', ...env },
        },
      );
      return { status: r.status, out: r.stdout, err: r.stderr };
    };
    const json = (r: { status: number | null; out: string; err: string }) => {
      assert.equal(r.status, 0, r.err);
      return JSON.parse(r.out);
    };

    it('adds (secret shown once), lists, shows deliveries, replays and removes', () => {
      const refused = cli(['add', '--team', String(TEAM), '--url', 'https://127.0.0.1/hook']);
      assert.notEqual(refused.status, 0);
      assert.match(refused.err, /127\.0\.0\.1.*not a public address/);
      const added = json(
        cli(['add', '--team', String(TEAM), '--url', 'http://127.0.0.1:9/hook'], {
          LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        }),
      );
      assert.match(added.secret, /^whsec_/);
      const listed = json(cli(['list', '--team', String(TEAM)]));
      assert.deepEqual(
        listed.map((e: { id: string; secret?: string }) => [e.id, e.secret]),
        [[added.id, undefined]],
      );
      // An object like the other commands' documents (issue 37), not a bare array.
      assert.deepEqual(json(cli(['deliveries', added.id])), { deliveries: [] });
      const noDelivery = cli(['replay', '999999']);
      assert.notEqual(noDelivery.status, 0);
      assert.match(noDelivery.err, /no delivery 999999/);
      assert.deepEqual(json(cli(['replay', '--endpoint', added.id, '--since', '2026-01-01T00:00:00Z'])), {
        replayed: 0,
      });
      assert.deepEqual(json(cli(['remove', added.id])), { id: added.id, removed: true });
      assert.deepEqual(json(cli(['list'])), []);
      assert.notEqual(cli(['remove', added.id]).status, 0);
    });

    it('refuses an endpoint past LEADLINE_WEBHOOK_MAX_ENDPOINTS, storing nothing (issue 36)', () => {
      const env = { LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_MAX_ENDPOINTS: '1' };
      const add = () => cli(['add', '--team', String(TEAM), '--url', 'http://127.0.0.1:9/cap'], env);
      const first = json(add());
      const second = add();
      assert.notEqual(second.status, 0);
      assert.match(
        second.err,
        new RegExp(`team ${TEAM}: The team has 1 webhook endpoint, .*LEADLINE_WEBHOOK_MAX_ENDPOINTS`),
      );
      assert.deepEqual(
        json(cli(['list', '--team', String(TEAM)])).map((e: { id: string }) => e.id),
        [first.id],
      );
      json(cli(['remove', first.id]));
    });
  });
}
