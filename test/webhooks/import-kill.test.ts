import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fileSource, importRecords } from '../../src/io/import/run-import.js';
import { enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { endpointFor } from './endpoints.js';

/**
 * Issue 13 §4: an import SIGKILLed in the middle of its transaction leaves no event for a lead
 * it did not store; run again, it stores every lead with exactly one event.
 */
const CHILD = fileURLToPath(new URL('./import-child.ts', import.meta.url));
const TEAM = 1310;
const MEMBER = 13101;
const LEADS = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'leadline-outbox-kill-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function bigFile(): string {
  const path = join(dir, 'big.ndjson');
  const lines = Array.from({ length: LEADS }, (_, i) =>
    JSON.stringify({
      type: 'lead',
      userId: MEMBER,
      id: `kill-${i}`,
      epoch: 1_750_000_000_000 + i,
      isLead: true,
      name: `Person ${i}`,
      email: `person${i}@kill.test`,
      note: 'x'.repeat(80),
    }),
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

for (const engine of enginesUnderTest()) {
  describe(`webhook outbox, import killed midway [${engine}]`, () => {
    it('leaves no event without its lead; the rerun writes one event per lead', async () => {
      const made = await makeEngineStore(engine);
      try {
        const { store, location } = made;
        await load(store, [
          { type: 'team', id: TEAM, name: 'Killed' },
          { type: 'member', id: MEMBER, teamId: TEAM, email: 'k@killed.test', role: 'admin', pid: 'pk' },
          { type: 'lead', userId: MEMBER, id: 'kept', epoch: 1_740_000_000_000, isLead: true },
        ]);
        await endpointFor(store, TEAM);
        await load(store, [
          { type: 'lead', userId: MEMBER, id: 'one-before', epoch: 1_740_000_000_001, isLead: true },
        ]);
        const file = bigFile();
        const half = statSync(file).size / 2;
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', CHILD, location.dbPath, location.databaseUrl ?? '', file],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const read = Math.max(0, ...out.split('\n').map(Number).filter(Number.isFinite));
          if (read >= half && child.exitCode === null) child.kill('SIGKILL');
        });
        const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
        assert.equal(signal, 'SIGKILL', `killed midway, not ended (${code}): ${out}`);
        assert.ok(!out.includes('done'));

        const events = await store.webhooks.events(TEAM, 0, LEADS * 2);
        assert.deepEqual(
          events.map((e) => e.lead?.id),
          ['kept', 'one-before'],
          'only the events of the leads stored before (the log holds them, endpoint or not)',
        );

        const rerun = await importRecords(store, [fileSource(file)]);
        assert.equal(rerun.newLeads, LEADS);
        const all = await store.webhooks.events(TEAM, 0, LEADS * 2);
        assert.equal(all.length, LEADS + 2);
        const ids = all.map((e) => e.lead?.id);
        assert.ok(
          ids.every((id) => id !== undefined),
          'every event has its lead',
        );
        assert.equal(new Set(ids).size, ids.length, 'one event per lead');
      } finally {
        await made.cleanup();
      }
    });
  });
}
