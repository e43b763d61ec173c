import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLAIM_LEASE_MS } from '../../src/webhooks/delivery.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';
import { Receiver } from './receiver.js';

/**
 * Issue 13 §4: the serving process SIGKILLed in the middle of deliveries; after a restart every
 * event is delivered at least once (those in flight again after their 60 s lease, with the same
 * webhook-id), every signature verified by the receiver with the standardwebhooks library.
 * The restarted process's clock stands a lease and a second ahead, so the leases its predecessor
 * held have run out when it starts (it claims by its own clock): the wait is skipped, not the
 * path — the test took a minute an engine waiting for them.
 */
const CHILD = fileURLToPath(new URL('./serve-child.ts', import.meta.url));
const TEAM = 1601;
const MEMBER = 16011;
const LEADS = 400;
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function serve(made: EngineStore, clockAheadMs = 0): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, made.location.dbPath, made.location.databaseUrl ?? '', String(clockAheadMs)],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, DATABASE_URL: '' } },
  );
  children.add(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  await eventually(async () => assert.match(out, /listening/), 60_000);
  return child;
}

for (const engine of enginesUnderTest()) {
  describe(`webhook delivery survives SIGKILL of the server [${engine}]`, () => {
    it(`delivers every one of ${LEADS} events at least once after a restart`, {
      timeout: 240_000,
    }, async () => {
      const made = await makeEngineStore(engine);
      const receiver = await Receiver.start(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
      try {
        await load(made.store, [
          { type: 'team', id: TEAM, name: 'Killed' },
          { type: 'member', id: MEMBER, teamId: TEAM, email: 'k@killed.test', role: 'admin', pid: 'p' },
        ]);
        await endpointFor(made.store, TEAM, {
          url: receiver.url,
          secret: receiver.secrets[0]!,
          createdAt: Date.now() - 1000,
        });
        // A slow receiver, so deliveries are in flight when the kill comes.
        receiver.delayMs = 200;
        const first = await serve(made);
        await load(
          made.store,
          Array.from({ length: LEADS }, (_, i) => ({
            type: 'lead',
            userId: MEMBER,
            id: `k-${i}`,
            epoch: 1_750_000_000_000 + i,
            isLead: true,
          })),
        );
        await eventually(async () => assert.ok(receiver.received.length >= LEADS / 10), 60_000);
        first.kill('SIGKILL');
        await once(first, 'exit');
        const atKill = receiver.ids().size;
        assert.ok(atKill < LEADS, `killed midway (${atKill} of ${LEADS} delivered)`);
        const second = await serve(made, CLAIM_LEASE_MS + 1000);
        await eventually(async () => assert.equal(receiver.ids().size, LEADS), 150_000);
        assert.deepEqual(receiver.forged, []);
        const leadIds = new Set(receiver.received.map((r) => r.payload.data.legacyLeadId));
        assert.equal(leadIds.size, LEADS, 'every lead, each under one webhook-id');
        second.kill('SIGTERM');
        await once(second, 'exit');
      } finally {
        await receiver.close();
        await made.cleanup();
      }
    });
  });
}
