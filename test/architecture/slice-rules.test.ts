import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKey } from '../../src/keys/create-key.js';
import { findKey } from '../../src/keys/find-key.js';
import { revokeKey } from '../../src/keys/revoke-key.js';
import { BrownoutRefused, scheduleBrownout } from '../../src/retirement/schedule-brownout.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * The rules the use cases hold for every transport (README "Layout"): a team admin acts on their
 * team's keys only, a brownout is a window still to come naming stored keys. The console's and the
 * CLI's own tests reach them through their forms and commands; these call them as both do.
 */
const TEAM = 2101;
const OTHER = 2102;
const NOW = Date.parse('2026-11-28T00:00:00Z');
const OPERATOR = { via: 'operator' } as const;

for (const engine of enginesUnderTest()) {
  describe(`use cases of keys and brownouts [${engine}]`, () => {
    let made: EngineStore;
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Ours' },
        { type: 'team', id: OTHER, name: 'Theirs' },
        { type: 'member', id: 21011, teamId: TEAM, email: 'a@ours.test', role: 'admin', pid: 'o1' },
        { type: 'member', id: 21021, teamId: OTHER, email: 'b@theirs.test', role: 'admin', pid: 't1' },
      ]);
    });
    after(async () => made.cleanup());

    it("a team admin revokes their team's keys only; the operator any", async () => {
      const theirs = await createKey(made.store, { member: 21021 }, NOW);
      assert.equal(
        await findKey(made.store, { keyId: theirs.id, teamId: TEAM }),
        null,
        'another team’s key is not found',
      );
      assert.equal(
        await revokeKey(made.store, { keyId: theirs.id, teamId: TEAM, now: NOW, actor: OPERATOR }),
        false,
      );
      assert.equal(
        (await findKey(made.store, { keyId: theirs.id, teamId: null }))?.revokedAt,
        null,
        'still active',
      );
      assert.equal(
        await revokeKey(made.store, { keyId: theirs.id, teamId: OTHER, now: NOW, actor: OPERATOR }),
        true,
      );
      assert.equal(
        await revokeKey(made.store, { keyId: theirs.id, teamId: null, now: NOW, actor: OPERATOR }),
        false,
        'revoked already',
      );
    });

    it('a brownout ends after it starts and after now, and names stored keys; a repeat is added and named', async () => {
      const refusal = async (input: Parameters<typeof scheduleBrownout>[1]) => {
        const err = await scheduleBrownout(made.store, input).catch((e: unknown) => e);
        assert.ok(err instanceof BrownoutRefused, String(err));
        return err.refusal;
      };
      const hour = 3_600_000;
      assert.deepEqual(
        await refusal({ startsAt: NOW + hour, endsAt: NOW + hour, keyIds: null, now: NOW, actor: OPERATOR }),
        {
          kind: 'ends-before-start',
        },
      );
      assert.deepEqual(
        await refusal({ startsAt: NOW - 2 * hour, endsAt: NOW, keyIds: null, now: NOW, actor: OPERATOR }),
        {
          kind: 'already-ended',
        },
      );
      assert.deepEqual(
        await refusal({ startsAt: NOW, endsAt: NOW + hour, keyIds: [987654321], now: NOW, actor: OPERATOR }),
        {
          kind: 'unknown-keys',
          keyIds: [987654321],
        },
      );
      const key = await createKey(made.store, { member: 21011 }, NOW);
      const input = {
        startsAt: NOW + hour,
        endsAt: NOW + 2 * hour,
        keyIds: [key.id],
        now: NOW,
        actor: OPERATOR,
      };
      const first = await scheduleBrownout(made.store, input);
      assert.deepEqual(first.sameAs, []);
      const again = await scheduleBrownout(made.store, input);
      assert.deepEqual(again.sameAs, [first.brownout.id]);
      for (const b of [first, again]) await made.store.retirement.removeBrownout(b.brownout.id);
    });
  });
}
