/**
 * What the search index's pending list limit (GIN `gin_pending_list_limit`) costs PostgreSQL
 * during an import's lead batches: the store's leads written again as an import writes them — a
 * statement per 1,000 leads in storage order — then the list merged (`gin_clean_pending_list`),
 * in a transaction rolled back, once per limit, rounds alternated. Server-side time only (the
 * statements copy rows already in the server), so the client's work does not blur it.
 *
 *   leadline --database-url '<url with search_path=<schema>>' import <file>   # a store to copy
 *   node --import tsx bench/gin-pending.ts --database-url '<same url>' [--rounds 3] [default 16MB 32MB 64MB]
 *
 * `--onto-stored` writes the copies as new leads beside the stored ones (another id, uuid and
 * seq), into an index that already holds their trigrams, instead of into the table emptied (a
 * fresh store, as P5 imports into). It leaves the store's data as it was (every round is rolled
 * back), though rolled-back rounds leave dead entries in the index until a VACUUM.
 */
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { median } from './lib.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'database-url': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'onto-stored': { type: 'boolean', default: false },
  },
});
const url = values['database-url'];
if (url === undefined) {
  console.error('usage: bench/gin-pending.ts --database-url <url> [--rounds N] [--onto-stored] [limits…]');
  process.exit(2);
}
const limits = positionals.length > 0 ? positionals : ['default', '16MB', '32MB', '64MB'];
const BATCH = 1000;

const sql = postgres(url, { max: 1, onnotice: () => {} });
try {
  await sql`CREATE TEMP TABLE copied AS SELECT * FROM leads ORDER BY seq`;
  await sql`CREATE INDEX ON copied (seq)`;
  await sql`ANALYZE copied`;
  const seqs = await sql<{ seq: string }[]>`SELECT seq::text FROM copied ORDER BY seq`;
  const bounds: [string, string][] = [];
  for (let i = 0; i < seqs.length; i += BATCH)
    bounds.push([seqs[i]!.seq, seqs[Math.min(i + BATCH, seqs.length) - 1]!.seq]);
  console.log(`${seqs.length} leads in ${bounds.length} statements; limits ${limits.join(', ')}`);
  // Onto the stored leads: the copies as new leads (another id, uuid and seq) beside them, into
  // an index that already holds their trigrams. Else into the table emptied, as a fresh store.
  const onto = values['onto-stored'];
  const columns = (
    await sql<{ name: string }[]>`SELECT column_name AS name FROM information_schema.columns
      WHERE table_name = 'leads' AND table_schema = current_schema() ORDER BY ordinal_position`
  ).map((c) => c.name);
  const copiedAs: Record<string, string> = {
    seq: "nextval('leads_seq')",
    lead_id: "lead_id || ' copy'",
    uuid: 'gen_random_uuid()',
  };
  const select = onto ? columns.map((c) => copiedAs[c] ?? c).join(', ') : '*';
  const into = onto ? `leads (${columns.join(', ')})` : 'leads';
  const times = new Map<string, number[]>(limits.map((l) => [l, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const limit of round % 2 === 0 ? limits : [...limits].reverse()) {
      const seconds = await sql
        .begin(async (tx) => {
          if (!onto) await tx`TRUNCATE leads`;
          if (limit !== 'default') await tx.unsafe(`SET LOCAL gin_pending_list_limit = '${limit}'`);
          const t0 = performance.now();
          for (const [from, to] of bounds)
            await tx.unsafe(
              `INSERT INTO ${into} SELECT ${select} FROM copied WHERE seq BETWEEN $1 AND $2 ORDER BY seq`,
              [from, to],
            );
          await tx`SELECT gin_clean_pending_list('leads_search'::regclass)`;
          const took = (performance.now() - t0) / 1000;
          throw Object.assign(new Error('roll back'), { took });
        })
        .catch((err: { took?: number }) => {
          if (err.took === undefined) throw err;
          return err.took;
        });
      times.get(limit)!.push(seconds);
      console.log(`round ${round + 1} ${limit}: ${seconds.toFixed(2)} s`);
    }
  }
  const base = median(times.get(limits[0]!)!);
  for (const [limit, t] of times)
    console.log(
      `${limit}: median ${median(t).toFixed(2)} s (${(median(t) / base).toFixed(2)} × ${limits[0]})`,
    );
} finally {
  await sql.end();
}
