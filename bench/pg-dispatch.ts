/**
 * The PostgreSQL outbox's dispatch step draining a backlog (src/storage/postgres/deliveries.ts):
 * BENCH_EVENTS leads (100,000) imported into a team with no webhook endpoint, as most teams are,
 * then `dispatch(dispatchBatch)` called until nothing waits. Prints the drain's wall time, the
 * median batch, and this process's CPU time over it (what the serving process spends parsing
 * the batches). Then the same with the team's one endpoint registered first: the figures with
 * deliveries to write. Each in a schema of its own, no ANALYZE (as where autovacuum is off).
 *
 *   taskset -c 1 node --import tsx bench/pg-dispatch.ts
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import postgres from 'postgres';
import { importRecords } from '../src/io/import/run-import.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { median } from './lib.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const base = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function drain(withEndpoint: boolean): Promise<void> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const store = PostgresStore.open(`${base}${base.includes('?') ? '&' : '?'}search_path=${schema}`);
  try {
    await store.migrate();
    const records: object[] = [
      { type: 'team', id: 1, name: 'Bench' },
      { type: 'member', id: 11, teamId: 1, email: 'bench@bench.test', role: 'admin', pid: 'p' },
    ];
    const load = (rs: object[]) =>
      importRecords(store, [
        { name: 'bench.ndjson', open: () => Readable.from([rs.map((r) => JSON.stringify(r)).join('\n')]) },
      ]);
    await load(records);
    if (withEndpoint)
      await store.webhooks.addEndpoint({
        teamId: 1,
        url: 'https://hooks.example.test/bench',
        description: null,
        eventTypes: ['lead.created'],
        members: null,
        subteams: null,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        createdAt: Date.now() - 1000,
      });
    for (let i = 0; i < EVENTS; i += 10_000)
      await load(
        Array.from({ length: Math.min(10_000, EVENTS - i) }, (_, k) => ({
          type: 'lead',
          userId: 11,
          id: `d-${i + k}`,
          epoch: 1_750_000_000_000 + i + k,
          isLead: true,
          name: `Bench ${i + k}`,
          email: `d${i + k}@bench.test`,
        })),
      );
    const batches: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    for (;;) {
      const b0 = performance.now();
      const done = await store.deliveries.dispatch(store.deliveries.dispatchBatch, Date.now());
      if (done === 0) break;
      batches.push(performance.now() - b0);
      n += done;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      JSON.stringify({
        endpoint: withEndpoint,
        events: n,
        drainMs: Math.round(wall),
        batchMedianMs: Number(median(batches).toFixed(2)),
        processCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      }),
    );
  } finally {
    await store.close();
    await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await drain(false);
await drain(true);
