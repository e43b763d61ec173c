import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { eventually, load } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';
import { Receiver } from './receiver.js';

/**
 * Issue 13 §4: two `leadline serve` processes on one PostgreSQL store deliver 10,000 events to
 * one receiver: each is delivered, and — every attempt succeeding — none twice. Both instances
 * must have delivered some (the work is shared, not one idle).
 */
const CHILD = fileURLToPath(new URL('./serve-child.ts', import.meta.url));
const TEAM = 1701;
const MEMBER = 17011;
const EVENTS = 10_000;
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('two instances on PostgreSQL', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  it(`deliver ${EVENTS} events, each exactly once while every attempt succeeds`, {
    timeout: 300_000,
  }, async () => {
    const made = await makeEngineStore('postgres');
    const receiver = await Receiver.start(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    const byInstance = new Map<string, number>();
    try {
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Two' },
        { type: 'member', id: MEMBER, teamId: TEAM, email: 't@two.test', role: 'admin', pid: 'p' },
      ]);
      await endpointFor(made.store, TEAM, {
        url: receiver.url,
        secret: receiver.secrets[0]!,
        createdAt: Date.now() - 1000,
      });
      for (let i = 0; i < 2; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', CHILD, '', made.location.databaseUrl!], {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, DATABASE_URL: '' },
        });
        children.push(child);
        let out = '';
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
        });
        await eventually(async () => assert.match(out, /listening/), 60_000);
      }
      await load(
        made.store,
        Array.from({ length: EVENTS }, (_, i) => ({
          type: 'lead',
          userId: MEMBER,
          id: `two-${i}`,
          epoch: 1_750_000_000_000 + i,
          isLead: true,
        })),
      );
      await eventually(async () => assert.equal(receiver.ids().size, EVENTS), 240_000);
      await new Promise((done) => setTimeout(done, 1000)); // a duplicate would arrive now
      assert.deepEqual(receiver.forged, []);
      assert.equal(receiver.received.length, EVENTS, 'no event delivered twice');
      // Which process sent each request: its connection's client port, owned by one process (ss).
      const owner = new Map<number, string>();
      const sockets = execFileSync('ss', ['-Htnp', `dport = :${receiver.port}`], { encoding: 'utf8' });
      for (const line of sockets.split('\n')) {
        const m = /127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:\d+\s+users:\(\("node",pid=(\d+)/.exec(line);
        if (m !== null) owner.set(Number(m[1]), m[2]!);
      }
      for (const r of receiver.received) {
        const pid = owner.get(r.remotePort) ?? 'closed';
        byInstance.set(pid, (byInstance.get(pid) ?? 0) + 1);
      }
      byInstance.delete('closed');
      const pids = new Set(children.map((c) => String(c.pid)));
      assert.ok([...byInstance.keys()].every((pid) => pids.has(pid)));
      assert.equal(byInstance.size, 2, `both instances delivered: ${JSON.stringify([...byInstance])}`);
      const records = await made.store.deliveries.deliveries(
        'operator',
        (await made.store.webhooks.endpoints(TEAM))[0]!.id,
        EVENTS,
      );
      assert.ok(records?.every((d) => d.state === 'delivered' && d.attempts.length === 1));
    } finally {
      for (const c of children) {
        c.kill('SIGTERM');
        if (c.exitCode === null) await once(c, 'exit');
      }
      await receiver.close();
      await made.cleanup();
    }
  });
});
