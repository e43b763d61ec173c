import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { registerWebhookCommands } from '../../src/cli/webhooks.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * `leadline webhooks add --members/--subteams` holds the API's rule (docs/webhooks.md): filters
 * name the endpoint's team's members and subteams only, refused with the API's words
 * (`POST /api/pub/v2/webhooks` says `no subteam 7 in this team` for `/subteamIds/0`). Both call
 * registerEndpoint (src/webhooks/register-endpoint.ts); before it the command checked members only.
 */
const TEAM = 1951;
const OTHER = 1952;
const MEMBER = 19511;
const STRANGER = 19521;
const SUB = 1951;
const FOREIGN_SUB = 1952;

for (const engine of enginesUnderTest()) {
  describe(`leadline webhooks add: filters of another team [${engine}]`, () => {
    let made: EngineStore;
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Filters' },
        { type: 'team', id: OTHER, name: 'Elsewhere' },
        { type: 'member', id: MEMBER, teamId: TEAM, email: 'm@filters.test', role: 'member', pid: 'f1' },
        { type: 'member', id: STRANGER, teamId: OTHER, email: 's@else.test', role: 'admin', pid: 'f2' },
        { type: 'subteam', id: SUB, teamId: TEAM, name: 'ours', members: [MEMBER], admins: [] },
        { type: 'subteam', id: FOREIGN_SUB, teamId: OTHER, name: 'theirs', members: [STRANGER], admins: [] },
      ]);
    });
    after(async () => made.cleanup());

    /** Runs `webhooks add` in process; the error it ends with (null: none) and the document it printed. */
    const add = async (flags: string[]): Promise<{ failure: Error | null; doc: unknown }> => {
      let failure: Error | null = null;
      let doc: unknown = null;
      const program = new Command().exitOverride();
      registerWebhookCommands(program, async (work) => {
        const out = {
          json: true,
          result: (value: unknown) => {
            doc = value;
          },
        };
        await work({ store: made.store, out }).catch((err: unknown) => {
          failure = err as Error;
        });
      });
      const allow = process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE;
      process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE = 'true';
      try {
        await program.parseAsync(
          ['webhooks', 'add', '--team', String(TEAM), '--url', 'http://127.0.0.1:9/filters', ...flags],
          { from: 'user' },
        );
      } finally {
        if (allow === undefined) delete process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE;
        else process.env.LEADLINE_WEBHOOK_ALLOW_PRIVATE = allow;
      }
      return { failure, doc };
    };

    it("refuses --subteams naming another team's subteam, as the API does, storing nothing", async () => {
      const { failure } = await add(['--subteams', `${SUB},${FOREIGN_SUB}`]);
      assert.ok(failure !== null, 'refused');
      assert.equal(failure.name, 'CommandError');
      assert.equal(failure.message, `--subteams: no subteam ${FOREIGN_SUB} in this team`);
      assert.deepEqual(await made.store.webhooks.endpoints(TEAM), [], 'nothing stored');
    });

    it("refuses --members naming another team's member, in the API's words", async () => {
      const { failure } = await add(['--members', `${MEMBER},${STRANGER}`]);
      assert.ok(failure !== null, 'refused');
      assert.equal(failure.message, `--members: no member ${STRANGER} in this team`);
      assert.deepEqual(await made.store.webhooks.endpoints(TEAM), [], 'nothing stored');
    });

    it("takes the team's own members and subteams", async () => {
      const { failure, doc } = await add(['--members', String(MEMBER), '--subteams', String(SUB)]);
      assert.equal(failure, null);
      const added = doc as { id: string; memberIds: number[]; subteamIds: number[] };
      assert.deepEqual([added.memberIds, added.subteamIds], [[MEMBER], [SUB]]);
      assert.ok(await made.store.webhooks.removeEndpoint('operator', added.id));
    });
  });
}
