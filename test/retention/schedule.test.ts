import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setRetention } from '../../src/retention/policy.js';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';

/**
 * Issue 40 §6, the server's schedule (docs/privacy.md "Retention"): two `leadline serve`
 * processes on one store, running the policies every second (LEADLINE_RETENTION_INTERVAL_SECONDS),
 * erase a team's due leads (together: each of them, none twice) and
 * go on erasing leads that become due later; the fresh lead and the team without a policy stay;
 * both stop cleanly on SIGTERM.
 */
const DAY = 86_400_000;
const TEAM = 91;
const OTHER = 92;
const lead = (userId: number, id: string, ageDays: number) => ({
  type: 'lead',
  userId,
  id,
  epoch: Date.now() - ageDays * DAY,
  isLead: true,
  name: `Scheduled ${id}`,
});

for (const engine of enginesUnderTest()) {
  describe(`the retention schedule of leadline serve [${engine}]`, () => {
    let made: EngineStore;
    let servers: ServerProcess[] = [];
    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Scheduled' },
        { type: 'team', id: OTHER, name: 'Unscheduled' },
        { type: 'member', id: 911, teamId: TEAM, email: 'a@s91.test', pid: 'p1', role: 'admin' },
        { type: 'member', id: 921, teamId: OTHER, email: 'b@s92.test', pid: 'p2', role: 'admin' },
        lead(911, 'fresh', 1),
        ...Array.from({ length: 20 }, (_, i) => lead(911, `old-${i}`, 60 + i)),
        lead(921, 'other', 400),
      ]);
    });
    after(async () => {
      await stopAll();
      await made.cleanup();
    });

    const leadsOf = async (teamId: number) => {
      const out: string[] = [];
      for await (const b of made.store.leads.scan({ teamId }, 100)) out.push(...b.map((l) => l.id));
      return out.sort();
    };

    test('two instances erase the due leads on their schedule, each once, and stop cleanly', async () => {
      await setRetention(made.store, { teamId: TEAM, days: 30, now: Date.now(), actor: { via: 'operator' } });
      const env = { LEADLINE_RETENTION_INTERVAL_SECONDS: '1' };
      servers = await Promise.all([
        startServerProcess(storeArgs(made.location), env),
        startServerProcess(storeArgs(made.location), env),
      ]);
      await eventually(async () => assert.deepEqual(await leadsOf(TEAM), ['fresh']), 30_000);
      // Leads that become due later (here: loaded later) are erased by a later run.
      await load(made.store, [lead(911, 'late', 45)], 'late.ndjson');
      await eventually(async () => assert.deepEqual(await leadsOf(TEAM), ['fresh']), 30_000);
      assert.deepEqual(await leadsOf(OTHER), ['other']);
      // The log line follows the run's reclaim (VACUUM on PostgreSQL): a moment after the erasure.
      const erasedInLogs = () =>
        servers
          .flatMap((s) => s.logs)
          .filter((l) => l.includes('retention: leads erased'))
          .reduce((n, l) => n + (JSON.parse(l) as { erased: number }).erased, 0);
      await eventually(async () =>
        assert.equal(erasedInLogs(), 21, 'the two instances together erased the 21 due leads'),
      );
      const policy = await made.store.retention.policy(TEAM);
      assert.notEqual(policy?.lastRunAt, null);
      for (const s of servers) assert.equal(await s.stop(), 0);
    });
  });
}
