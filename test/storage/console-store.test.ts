import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ConsoleSignInError,
  closeSession,
  createSignInLink,
  openSession,
  resumeSession,
  SESSION_IDLE_MS,
  SIGN_IN_LINK_MS,
  tokenHash,
} from '../../src/console/sign-in.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/** Issue 15 §1: console sign-in links and sessions, the same rules on every engine. */
const T0 = 1_790_000_000_000;
const HOUR = 3_600_000;
/** The default lifetime (LEADLINE_CONSOLE_SESSION_MAX_HOURS=12). */
const LIFE = { maxMs: 12 * HOUR };

for (const engine of enginesUnderTest()) {
  describe(`console sign-in on ${engine}`, () => {
    let made: EngineStore;
    let store: Store;
    before(async () => {
      made = await makeEngineStore(engine);
      store = made.store;
      await load(store, [
        { type: 'team', id: 1501, name: 'Console A' },
        { type: 'member', id: 15011, teamId: 1501, email: 'admin-a@console.test', role: 'admin' },
        { type: 'member', id: 15012, teamId: 1501, email: 'rep-a@console.test', role: 'member' },
      ]);
    });
    after(() => made.cleanup());

    test('a team admin link opens one session, once', async () => {
      const link = await createSignInLink(store, 'admin-a@console.test', T0);
      assert.match(link.token, /^[0-9a-f]{64}$/);
      assert.equal(link.expiresAt, T0 + SIGN_IN_LINK_MS);
      const session = await openSession(store, link.token, T0 + 1000);
      assert.ok(session !== null);
      assert.equal(await openSession(store, link.token, T0 + 2000), null, 'a used link opens nothing');
      const subject = await resumeSession(store, session, T0 + 3000, LIFE);
      assert.equal(subject?.kind, 'team-admin');
      assert.equal(subject?.kind === 'team-admin' ? subject.member.id : 0, 15011);
    });

    test('the store holds hashes only, never the token', async () => {
      const link = await createSignInLink(store, 15011, T0);
      // The token itself is not a stored link; its hash is.
      assert.equal(await store.console.redeemLink(Buffer.from(link.token), T0), null);
      assert.deepEqual(await store.console.redeemLink(tokenHash(link.token), T0), { memberId: 15011 });
    });

    test('an expired link is refused', async () => {
      const link = await createSignInLink(store, 15011, T0);
      assert.equal(await openSession(store, link.token, T0 + SIGN_IN_LINK_MS), null);
    });

    test('links are for team admins and the operator only', async () => {
      await assert.rejects(createSignInLink(store, 15012, T0), ConsoleSignInError);
      await assert.rejects(createSignInLink(store, 'nobody@console.test', T0), /no member/);
      const op = await createSignInLink(store, null, T0);
      const session = await openSession(store, op.token, T0);
      assert.deepEqual(await resumeSession(store, session!, T0 + 1, LIFE), { kind: 'operator' });
    });

    test('a session ends after the idle timeout; use keeps it alive', async () => {
      const link = await createSignInLink(store, 15011, T0);
      const session = (await openSession(store, link.token, T0))!;
      const almost = T0 + SESSION_IDLE_MS - 1;
      assert.ok(await resumeSession(store, session, almost, LIFE), 'in use just before the timeout');
      assert.ok(
        await resumeSession(store, session, almost + SESSION_IDLE_MS - 1, LIFE),
        'the clock restarted',
      );
      assert.equal(
        await resumeSession(store, session, almost + 2 * SESSION_IDLE_MS, LIFE),
        null,
        'idle too long',
      );
    });

    test('a session ends at its lifetime however active, the lifetime set by the caller (issue 36)', async () => {
      const link = await createSignInLink(store, 15011, T0);
      const session = (await openSession(store, link.token, T0))!;
      // A request every 20 minutes: never idle, yet the session ends 12 hours after sign-in.
      let t = T0;
      for (; t <= T0 + LIFE.maxMs - 20 * 60_000; t += 20 * 60_000) {
        assert.ok(await resumeSession(store, session, t, LIFE), `in use at ${(t - T0) / 60_000} min`);
      }
      assert.ok(await resumeSession(store, session, T0 + LIFE.maxMs - 1, LIFE), 'just before its end');
      assert.equal(await resumeSession(store, session, T0 + LIFE.maxMs, LIFE), null, 'ended at 12 h');
      const other = (await openSession(store, (await createSignInLink(store, 15011, T0)).token, T0))!;
      const hour = { maxMs: HOUR };
      assert.ok(await resumeSession(store, other, T0 + 25 * 60_000, hour));
      assert.ok(await resumeSession(store, other, T0 + 50 * 60_000, hour));
      assert.equal(await resumeSession(store, other, T0 + HOUR, hour), null, 'a 1 h lifetime');
    });

    test('sign-out ends the session; a garbled id is no session', async () => {
      const link = await createSignInLink(store, 15011, T0);
      const session = (await openSession(store, link.token, T0))!;
      await closeSession(store, session);
      assert.equal(await resumeSession(store, session, T0 + 1, LIFE), null);
      assert.equal(await resumeSession(store, 'not-a-session', T0 + 1, LIFE), null);
      assert.equal(await openSession(store, "' OR 1=1 --", T0), null);
    });

    test('prune forgets expired links and idle sessions', async () => {
      const link = await createSignInLink(store, 15011, T0);
      const session = (await openSession(store, link.token, T0))!;
      const later = await createSignInLink(store, 15011, T0 + 10 * SESSION_IDLE_MS);
      assert.ok(later.token);
      assert.equal(await store.console.touchSession(tokenHash(session), T0 + 1, 0, 0), null, 'pruned');
    });
  });
}
