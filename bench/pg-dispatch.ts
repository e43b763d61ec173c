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
import { addBenchEndpoint, benchLeads, loadRecords, openOutboxStore } from './harness/outbox-store.js';
import { median } from './lib.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);

async function drain(withEndpoint: boolean): Promise<void> {
  const { store, done } = await openOutboxStore('postgres');
  try {
    if (withEndpoint) await addBenchEndpoint(store, 'https://hooks.example.test/bench');
    for (let i = 0; i < EVENTS; i += 10_000)
      await loadRecords(store, benchLeads('d', i, Math.min(10_000, EVENTS - i)));
    const batches: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    for (;;) {
      const b0 = performance.now();
      const dispatched = await store.deliveries.dispatch(store.deliveries.dispatchBatch, Date.now());
      if (dispatched === 0) break;
      batches.push(performance.now() - b0);
      n += dispatched;
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
    await done();
  }
}

await drain(false);
await drain(true);
