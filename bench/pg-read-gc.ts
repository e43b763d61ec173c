/**
 * P3c on PostgreSQL, without leadline: reads team 1's leads page by page with postgres.js exactly
 * as PostgresLeads.range queries them (the same SQL, keyset pages, `.values()`), maps nothing and
 * sends nothing, and reports this process's own garbage-collection pauses (PerformanceObserver).
 * If the driver's reading alone pauses as long as leadline does during a big answer, the pauses
 * come from reading, not from leadline's mapping or writing.
 *
 *   node --import tsx bench/pg-read-gc.ts <database url of a store with team 1> [page=1000] [passes=5]
 */
import { PerformanceObserver } from 'node:perf_hooks';
import postgres from 'postgres';
import { PG_LEAD_QUERIES } from '../src/storage/postgres/leads.js';
import { quantile } from './load.js';

const [url, pageArg = '1000', passesArg = '5'] = process.argv.slice(2);
if (url === undefined) {
  console.error('usage: bench/pg-read-gc.ts <database url> [page] [passes]');
  process.exit(2);
}
const page = Number(pageArg);
const pauses: number[] = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push(entry.duration);
});
observer.observe({ entryTypes: ['gc'] });

const sql = postgres(url, { max: 1, onnotice: () => {} });
const t0 = performance.now();
let rows = 0;
for (let pass = 0; pass < Number(passesArg); pass++) {
  let after: [number, number] = [0, 0];
  for (;;) {
    const got = (await sql
      .unsafe(PG_LEAD_QUERIES.teamRange, [1, after[0], after[1], Number.MAX_SAFE_INTEGER, page], {
        prepare: true,
      })
      .values()) as unknown as unknown[][];
    rows += got.length;
    const last = got.at(-1);
    if (last === undefined || got.length < page) break;
    after = [Number(last[2]), Number(last[0])]; // epoch, seq (LEAD_COLUMNS order)
  }
}
const ms = performance.now() - t0;
await sql.end();
observer.disconnect();
const total = pauses.reduce((a, b) => a + b, 0);
console.log(
  `${rows} rows in pages of ${page}: ${Math.round(ms)} ms; GC pauses (${pauses.length}): ` +
    `p50 ${quantile(pauses, 0.5).toFixed(2)} p99 ${quantile(pauses, 0.99).toFixed(2)} ms, ` +
    `${Math.round(total)} ms in all, ${((100 * total) / ms).toFixed(1)} % of the time`,
);
