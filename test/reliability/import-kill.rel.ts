import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import postgres from 'postgres';
import { leadline, storeArgs } from '../cli/cli.js';
import { dumpLocation } from '../cli/store-dump.js';
import { enginesUnderTest } from '../support/engines.js';
import { BIN } from '../support/server-process.js';
import { B } from '../v1/fixtures.js';
import { report } from './report.js';
import { fixtureAt } from './world.js';

/**
 * R6: `leadline import` SIGKILLed in the middle of a big file, at several moments → the store
 * dump is exactly what it was; a rerun of the same import then completes.
 */
const LEADS = Number(process.env.RELIABILITY_R6_LEADS ?? 100_000);
/** When to kill, as fractions of the time a whole import of the same file takes (measured first). */
const KILL_AT = (process.env.RELIABILITY_R6_KILL_AT ?? '0.1,0.3,0.5,0.65').split(',').map(Number);

const dir = mkdtempSync(join(tmpdir(), 'leadline-r6-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function bigFile(): string {
  const path = join(dir, 'big.ndjson');
  const lines = [
    JSON.stringify({ type: 'team', id: 105, name: 'Imported Later' }),
    JSON.stringify({
      type: 'member',
      id: 1051,
      teamId: 105,
      email: 'late@later.test',
      role: 'admin',
      pid: '7051',
    }),
    // A change to an existing member and team, which must not survive a kill either.
    JSON.stringify({ type: 'member', id: 1013, teamId: 101, email: 'mia.renamed@spree.test', pid: '7013' }),
  ];
  for (let i = 0; i < LEADS; i++)
    lines.push(
      JSON.stringify({
        type: 'lead',
        userId: i % 2 === 0 ? 1051 : 1013,
        id: `bulk-${i}`,
        epoch: B + i * 1000,
        isLead: true,
        name: `Person ${i}`,
        email: `person${i}@bulk.test`,
      }),
    );
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

for (const engine of enginesUnderTest()) {
  describe(`R6 import SIGKILLed midway (${engine})`, () => {
    test(`killed at ${KILL_AT.join(', ')} of a ${LEADS}-lead import: store unchanged each time; a rerun completes`, async () => {
      const file = bigFile();
      // Calibration: how long the whole import takes on a store of its own. Timed twice and the
      // faster kept: one slow run on a noisy host would put the 65% kill after a faster import's
      // commit, and the trial would prove nothing (it fails below as "no longer running").
      const calibrationMs: number[] = [];
      for (let round = 0; round < 2; round++) {
        const scratch = await fixtureAt(engine);
        await scratch.store.close();
        const t0 = Date.now();
        const whole = leadline([...storeArgs(scratch.location), '--json', 'import', file]);
        calibrationMs.push(Date.now() - t0);
        await scratch.cleanup().catch(() => {});
        assert.equal(whole.status, 0, whole.stderr);
      }
      const fullMs = Math.min(...calibrationMs);
      const fx = await fixtureAt(engine);
      await fx.store.close();
      const args = [...storeArgs(fx.location), 'import', file];
      try {
        const before = await dumpLocation(fx.location);
        const trials: Record<string, unknown>[] = [];
        for (const fraction of KILL_AT) {
          const ms = Math.round(fullMs * fraction);
          const child = spawn(process.execPath, [BIN, ...args], {
            env: { ...process.env, DATABASE_URL: '' },
            stdio: 'ignore',
          });
          await new Promise((r) => setTimeout(r, ms));
          assert.equal(
            child.exitCode,
            null,
            `the import was no longer running at ${ms} ms (whole imports took ${calibrationMs.join(' and ')} ms)`,
          );
          // Evidence that it was midway: its open transaction (PostgreSQL) or its write-ahead log (SQLite).
          let midway: unknown;
          if (fx.location.databaseUrl !== null) {
            const sql = postgres(fx.location.databaseUrl, { max: 1, onnotice: () => {} });
            const rows = await sql`
              SELECT state, now() - xact_start AS open_for FROM pg_stat_activity
              WHERE application_name = 'leadline' AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`;
            await sql.end();
            midway = rows.map((r) => ({ state: r.state, openFor: String(r.open_for) }));
          } else {
            try {
              midway = { walBytes: statSync(`${fx.location.dbPath}-wal`).size };
            } catch {
              midway = { walBytes: 0 };
            }
          }
          child.kill('SIGKILL');
          await once(child, 'exit');
          const afterKill = await dumpLocation(fx.location);
          const unchanged = JSON.stringify(afterKill) === JSON.stringify(before);
          trials.push({ fraction, killAfterMs: ms, midway, unchanged, leadsAfter: afterKill.leads?.length });
          assert.deepEqual(afterKill, before, `store changed by an import killed at ${ms} ms`);
        }
        const started = Date.now();
        const rerun = leadline([...storeArgs(fx.location), '--json', 'import', file]);
        const rerunMs = Date.now() - started;
        const done = await dumpLocation(fx.location);
        report('R6', {
          engine,
          leads: LEADS,
          fullImportMs: fullMs,
          calibrationMs,
          fileBytes: statSync(file).size,
          trials,
          rerunExit: rerun.status,
          rerunMs,
          leadsBefore: before.leads?.length,
          leadsAfterRerun: done.leads?.length,
        });
        assert.equal(rerun.status, 0, rerun.stderr);
        assert.equal(done.leads?.length, (before.leads?.length ?? 0) + LEADS);
      } finally {
        await fx.cleanup().catch(() => {});
      }
    });
  });
}
