/**
 * Erasure timings (issue 40, docs/privacy.md): on a store of BENCH_LEADS seeded leads (two teams),
 * erasing 10,000 leads of one team by lead ids (BENCH_ERASE_IDS), and one person by e-mail among
 * all of them, through the use case the API calls, then the reclaim (SQLite: WAL checkpoint;
 * PostgreSQL: VACUUM) timed apart. Prints one JSON line.
 *
 *   node --import tsx bench/erasure.ts [sqlite|postgres]     (BENCH_LEADS=100000 by default)
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { seedRecords } from '../src/demo/seed.js';
import { fileSource, importRecords } from '../src/io/import/run-import.js';
import { eraseData, reclaimAfterErasure } from '../src/privacy/erase.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/store.js';

const engine = process.argv[2] ?? 'sqlite';
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const IDS = Number(process.env.BENCH_ERASE_IDS ?? 10_000);
const PG_URL = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PERSON = 'erase.me.bench@person.test';

const dir = mkdtempSync(join(tmpdir(), 'leadline-erasure-bench-'));
const schema = `erasure_${process.pid}`;
const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
const ms = (t0: number) => Math.round(performance.now() - t0);
let store: Store | null = null;
try {
  const file = join(dir, 'leads.ndjson');
  const out = createWriteStream(file);
  let memberOfTeam2: number | null = null;
  for (const line of seedRecords({ teams: 2, membersPerTeam: 20, leads: LEADS, seed: 'erasure' })) {
    const r = JSON.parse(line) as { type: string; id: number; teamId?: number };
    if (r.type === 'member' && r.teamId !== undefined && memberOfTeam2 === null && r.teamId !== 1)
      memberOfTeam2 = r.id;
    if (!out.write(`${line}\n`)) await new Promise<void>((res) => out.once('drain', () => res()));
  }
  // The person: one lead, among all the others.
  out.write(
    `${JSON.stringify({ type: 'lead', userId: memberOfTeam2, id: 'person', epoch: 1_700_000_000_000, isLead: true, name: 'Erase Me', email: PERSON })}\n`,
  );
  await new Promise<void>((res) => out.end(res));
  if (engine === 'sqlite') store = SqliteStore.open(join(dir, 'erasure.db'));
  else {
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    store = PostgresStore.open(`${PG_URL}?search_path=${schema}`);
  }
  await store.migrate();
  await importRecords(store, [fileSource(file)]);
  if (engine === 'postgres') await admin.unsafe(`ANALYZE ${schema}.leads`);
  const teams = await store.directory.teams();
  const team = teams[0]!.id;
  const ids: string[] = [];
  for await (const b of store.leads.scan({ teamId: team }, 1000)) {
    ids.push(...b.map((l) => l.uuid));
    if (ids.length >= IDS) break;
  }
  ids.length = Math.min(ids.length, IDS);
  let t0 = performance.now();
  const byIds = await eraseData(store, { by: { operator: { teamId: team } }, leadIds: ids, now: Date.now() });
  const byIdsMs = ms(t0);
  t0 = performance.now();
  await reclaimAfterErasure(store);
  const reclaimIdsMs = ms(t0);
  t0 = performance.now();
  const person = await eraseData(store, {
    by: { operator: { teamId: null } },
    email: PERSON,
    now: Date.now(),
  });
  const personMs = ms(t0);
  t0 = performance.now();
  await reclaimAfterErasure(store);
  const reclaimPersonMs = ms(t0);
  console.log(
    JSON.stringify({
      engine,
      leads: LEADS + 1,
      erasedByIds: byIds.counts.leads,
      byIdsMs,
      reclaimIdsMs,
      personLeads: person.counts.leads,
      personMs,
      reclaimPersonMs,
    }),
  );
} finally {
  await store?.close();
  if (engine === 'postgres') await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
