import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { registerWebhookCommands } from '../../src/cli/webhooks.js';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

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
      const where = storeArgs(made.location);
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
      // Issue 37: a local receiver's refusal names the setting that allows it.
      for (const url of ['https://127.0.0.1/hook', 'http://127.0.0.1:9/hook', 'https://localhost/hook']) {
        const local = cli(['add', '--team', String(TEAM), '--url', url], {
          LEADLINE_WEBHOOK_ALLOW_PRIVATE: '',
        });
        assert.notEqual(local.status, 0, url);
        assert.match(local.err, /LEADLINE_WEBHOOK_ALLOW_PRIVATE=true/, url);
      }
      const added = json(
        cli(['add', '--team', String(TEAM), '--url', 'http://127.0.0.1:9/hook'], {
          LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        }),
      );
      assert.match(added.secret, /^whsec_/);
      const listed = json(cli(['list', '--team', String(TEAM)]));
      assert.deepEqual(listed[0].createdBy, {
        via: 'cli',
        memberId: null,
        keyId: null,
        memberRemoved: false,
        keyRevoked: false,
      });
      const human = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          MAIN,
          ...(made.location.databaseUrl === null
            ? ['--db', made.location.dbPath]
            : ['--database-url', made.location.databaseUrl]),
          'webhooks',
          'list',
          '--team',
          String(TEAM),
        ],
        { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } },
      );
      assert.match(human.stdout, /created by/);
      assert.match(human.stdout, /the operator \(CLI\)/);
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

    // Issue 37: the human listing shows every attempt, with its answer or why there was none.
    it('deliveries (human): every attempt with its status, time and answer or reason, one line each', async (t) => {
      const { id } = await made.store.webhooks.addEndpoint({
        teamId: TEAM,
        url: 'http://127.0.0.1:9/attempts',
        description: null,
        eventTypes: ['lead.created'],
        members: null,
        subteams: null,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        createdAt: Date.parse('2026-11-20T09:00:00Z'),
      });
      // Removed at the end whatever happens: the tests below count the team's endpoints.
      t.after(() => made.store.webhooks.removeEndpoint('operator', id));
      const t0 = Date.parse('2026-11-20T10:00:00Z');
      const eventId = await made.store.deliveries.sendTest('operator', id, t0);
      const attempt = async (at: number, status: number | null, latencyMs: number, answer: string) => {
        const [delivery] = await made.store.deliveries.claim(10, at);
        assert.ok(delivery, 'the test delivery is due');
        await made.store.deliveries.recordAttempts([
          {
            delivery,
            result: { at, status, latencyMs, answer },
            outcome: { kind: 'retry', at: at + 60_000 },
          },
        ]);
      };
      await attempt(t0, null, 3, 'connection refused');
      await attempt(t0 + 60_000, 503, 41, 'Service\nUnavailable:   try later');
      await attempt(t0 + 120_000, 500, 12, `error ${'x'.repeat(100)}`);

      const where = storeArgs(made.location);
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', MAIN, ...where, 'webhooks', 'deliveries', id],
        {
          encoding: 'utf8',
          env: { ...process.env, DATABASE_URL: '' },
        },
      );
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.split('\n');
      // The deliveries, then the attempts: one row each, oldest first, in their own table.
      assert.match(r.stdout, new RegExp(`${eventId}.*webhook\\.test.*pending.* 3 .*500`));
      const header = lines.findIndex((l) =>
        /^delivery +attempt +at +status +time +answer or reason$/.test(l),
      );
      assert.ok(header > 0, `an attempts table:\n${r.stdout}`);
      const rows = lines.slice(header + 1).filter((l) => /^\d+ /.test(l));
      assert.equal(rows.length, 3, r.stdout);
      assert.match(rows[0] as string, / 1 +2026-11-20T10:00:00\.000Z +— +3 ms +connection refused$/);
      assert.match(
        rows[1] as string,
        / 2 +2026-11-20T10:01:00\.000Z +503 +41 ms +Service Unavailable: try later$/,
      );
      assert.match(rows[2] as string, / 3 +2026-11-20T10:02:00\.000Z +500 +12 ms +error x{73}…$/);
    });

    // A process's arguments cannot carry a NUL, and Node reads invalid UTF-8 in them as U+FFFD:
    // the command is run in process, as another caller of its action would, to hold it to the rule.
    it('refuses a --url or --description the store cannot hold (NUL, lone surrogate), storing nothing (issue 36)', async () => {
      const run = async (flags: string[]): Promise<unknown> => {
        let failure: unknown = null;
        const program = new Command().exitOverride();
        registerWebhookCommands(program, async (work) => {
          const out = { json: true, result: () => {} };
          await work({ store: made.store, out }).catch((err: unknown) => {
            failure = err;
          });
        });
        const allow = process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE;
        process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE = 'true';
        try {
          await program.parseAsync(['webhooks', 'add', '--team', String(TEAM), ...flags], { from: 'user' });
        } finally {
          if (allow === undefined) delete process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE;
          else process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE = allow;
        }
        return failure;
      };
      const url = 'http://127.0.0.1:9/text';
      const cases: [string[], RegExp][] = [
        [['--url', url, '--description', 'a\u0000b'], /^--description contains U\+0000 \(NUL\)/],
        [
          ['--url', url, '--description', 'a\ud800'],
          /^--description contains an unpaired surrogate \(U\+D800\)/,
        ],
        [['--url', `${url}\u0000`], /^--url contains U\+0000 \(NUL\)/],
      ];
      for (const [flags, message] of cases) {
        const failure = await run(flags);
        assert.ok(failure instanceof Error && failure.name === 'CommandError', `${flags}: ${failure}`);
        assert.match(failure.message, message);
      }
      assert.deepEqual(await made.store.webhooks.endpoints(TEAM), [], 'nothing stored');
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
