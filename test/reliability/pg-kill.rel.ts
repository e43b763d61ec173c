import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { keyFor, load } from '../support/helpers.js';
import { startServerProcess, stopAll } from '../support/server-process.js';
import { fixtureRecords } from '../v1/fixtures.js';
import { mixedRequests, startLoad, startTicker } from './load.js';
import { type PrivatePostgres, startPrivatePostgres } from './private-pg.js';
import { report, saveLogs } from './report.js';

/**
 * R4: the PostgreSQL server is killed (SIGKILL to its postmaster) under load and started again.
 * Meanwhile only 503 problem+json with Retry-After; back within 2 s of the database's return; the
 * process never exits.
 */
const DOWN_MS = Number(process.env.RELIABILITY_R4_DOWN_MS ?? 4000);
let pg: PrivatePostgres | undefined;
after(async () => {
  await stopAll();
  pg?.destroy();
});

test('R4: PostgreSQL killed and restarted under load', async () => {
  pg = await startPrivatePostgres();
  const store = PostgresStore.open(pg.url);
  await store.migrate();
  await load(store, fixtureRecords());
  const key = await keyFor(store, { member: 1011, legacyV1: true });
  await store.close();
  const server = await startServerProcess(['--database-url', pg.url], {
    LEADLINE_RATE_LIMIT: '100000000',
    LEADLINE_PG_CONNECT_TIMEOUT_SECONDS: '2',
  });
  const load_ = startLoad(server.url, mixedRequests(key, 101), { connections: 8, duration: 60 });
  const probe = startTicker(server.url, '/api/pub/leads/getLastLeadTeam', key, 50);
  await new Promise((r) => setTimeout(r, 2000));
  const killedAt = Date.now();
  pg.kill();
  await new Promise((r) => setTimeout(r, DOWN_MS));
  pg.start();
  const backAt = Date.now();
  await new Promise((r) => setTimeout(r, 5000));
  load_.instance.stop();
  await load_.done;
  await probe.stop();
  // Recovery: from the database's return until the first probe request sent then is answered 200,
  // after which every request sent is answered 200.
  const sentAfter = probe.records.filter((r) => r.sentAt >= backAt).sort((a, b) => a.sentAt - b.sentAt);
  let firstGood = sentAfter.length;
  for (let i = sentAfter.length - 1; i >= 0 && sentAfter[i]?.status === 200; i--) firstGood = i;
  const recoveredAt = sentAfter[firstGood]?.doneAt ?? 0;
  const slowest = Math.max(
    0,
    ...probe.records.filter((r) => r.sentAt >= killedAt).map((r) => r.doneAt - r.sentAt),
  );
  const over5s = probe.records.filter((r) => r.doneAt - r.sentAt > 5000).length;
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  const during = probe.records.filter((r) => r.doneAt >= killedAt && r.sentAt < backAt);
  const tally: Record<string, number> = {};
  for (const r of during) {
    const k =
      r.error ?? `${r.status}${r.status === 503 ? ` ${r.contentType} retry-after=${r.retryAfter}` : ''}`;
    tally[k] = (tally[k] ?? 0) + 1;
  }
  const bad = during.filter(
    (r) =>
      r.error !== undefined ||
      (r.status !== 200 &&
        !(r.status === 503 && /problem\+json/.test(r.contentType ?? '') && r.retryAfter !== undefined)),
  );
  const loadBad = Object.entries(load_.tally.byStatus)
    .filter(([s]) => s !== '200' && s !== '503')
    .reduce((n, [, c]) => n + c, 0);
  const exit = await server.stop();
  // What the server logged about the outage (warnings and errors), by message.
  const logged: Record<string, number> = {};
  for (const line of server.logs) {
    try {
      const e = JSON.parse(line) as { level: number; msg: string; err?: { message?: string; code?: string } };
      if (e.level >= 40) {
        const k = `${e.msg}${e.err ? `: ${e.err.code ?? ''} ${e.err.message ?? ''}` : ''}`.slice(0, 120);
        logged[k] = (logged[k] ?? 0) + 1;
      }
    } catch {}
  }
  const timeline = probe.records
    .filter((r) => r.doneAt >= backAt - 3000)
    .sort((a, b) => a.sentAt - b.sentAt)
    .filter((_r, i) => i % 5 === 0)
    .slice(0, 40)
    .map((r) => `${r.sentAt - backAt}..${r.doneAt - backAt}:${r.error ?? r.status}`);
  saveLogs('R4', server.logs);
  report('R4', {
    downMs: DOWN_MS,
    probeDuringOutage: tally,
    probeBad: bad.length,
    autocannonByStatus: load_.tally.byStatus,
    autocannonErrors: load_.tally.errors,
    probeRequests: probe.records.length,
    slowestProbeMs: slowest,
    probeOver5s: over5s,
    recoveryMsAfterDatabaseBack: recoveredAt === 0 ? null : recoveredAt - backAt,
    aliveThroughout: alive,
    serverWarnings: logged,
    probeTimelineAroundReturn: timeline,
    exitCode: exit,
  });
  assert.ok(alive, 'the server process never exited');
  assert.ok(
    during.some((r) => r.status === 503),
    'the outage was seen',
  );
  assert.equal(bad.length, 0, JSON.stringify(tally));
  assert.equal(
    over5s,
    0,
    `${over5s} requests waited over 5 s (slowest ${slowest} ms) instead of a prompt 503`,
  );
  assert.equal(loadBad, 0, JSON.stringify(load_.tally.byStatus));
  assert.deepEqual(load_.tally.errors, {});
  assert.ok(
    recoveredAt > 0 && recoveredAt - backAt <= 2000,
    `recovered ${recoveredAt - backAt} ms after the database`,
  );
  assert.equal(exit, 0);
});
