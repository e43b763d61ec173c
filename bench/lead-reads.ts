/**
 * The read paths issue 39 touched, in process, at the store port: v1's getLastLead (member,
 * team, subteam), a v1 range of 1,000 leads, a v2 changes page of 100 and get-by-id — µs a call,
 * median of ROUNDS rounds of CALLS calls, and the import of the same data. Runs unchanged on a
 * tree before issue 39 (only ports both have), so two trees give figures side by side:
 *
 *   node --import tsx bench/lead-reads.ts [sqlite|postgres]     (BENCH_LEADS=100000 by default)
 *
 * Prints one JSON line. The store is made in a temporary file / schema and removed after.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { seedRecords } from '../src/demo/seed.js';
import { fileSource, importRecords } from '../src/io/import/run-import.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/store.js';

const engine = process.argv[2] ?? 'sqlite';
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PG_URL = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const dir = mkdtempSync(join(tmpdir(), 'leadline-reads-'));
const schema = `reads_${process.pid}`;
const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
try {
  const file = join(dir, 'leads.ndjson');
  const out = createWriteStream(file);
  const subteams: { id: number; teamId: number }[] = [];
  for (const line of seedRecords({ teams: 2, membersPerTeam: 20, leads: LEADS, seed: 'reads' })) {
    if (line.includes('"type":"subteam"')) subteams.push(JSON.parse(line));
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  let store: Store;
  if (engine === 'sqlite') store = SqliteStore.open(join(dir, 'reads.db'));
  else {
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    store = PostgresStore.open(`${PG_URL}?search_path=${schema}`);
  }
  await store.migrate();
  const t0 = performance.now();
  await importRecords(store, [fileSource(file)]);
  const importSeconds = (performance.now() - t0) / 1000;
  // A store in service has its statistics (autovacuum): read plans do not wait on the race.
  if (engine === 'postgres') await admin.unsafe(`ANALYZE ${schema}.leads, ${schema}.members`);
  const teams = await store.directory.teams();
  const team = teams[0]!.id;
  const members = (await store.directory.members(team)).map((m) => m.id);
  const subteam = subteams.find((st) => st.teamId === team)?.id ?? null;
  const last = (await store.leads.lastOfTeam(team))!;
  const feedAt = (await store.leads.changes({ teamId: team }, null, LEADS / 4)).next;
  const ops: Record<string, (i: number) => Promise<unknown>> = {
    lastOfMember: (i) => store.leads.lastOfMember(team, members[i % members.length]!),
    lastOfTeam: () => store.leads.lastOfTeam(team),
    ...(subteam === null
      ? {}
      : {
          lastOfSubteam: (i: number) =>
            store.leads.lastOfSubteam(team, subteam, members[i % members.length]!),
        }),
    range1000: async () => {
      let n = 0;
      for await (const b of store.leads.range({ teamId: team }, { start: 0, end: null }, 100)) {
        n += b.length;
        if (n >= 1000) break;
      }
    },
    changes100: () => store.leads.changes({ teamId: team }, feedAt, 100),
    byUuid: () => store.leads.byUuid({ teamId: team }, last.uuid),
  };
  const us: Record<string, number> = {};
  for (const [name, op] of Object.entries(ops)) {
    const calls = name === 'range1000' ? CALLS / 20 : CALLS;
    for (let i = 0; i < calls / 4; i++) await op(i); // warm-up
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      for (let i = 0; i < calls; i++) await op(i);
      rounds.push(((performance.now() - t) * 1000) / calls);
    }
    us[name] = Math.round(median(rounds) * 10) / 10;
  }
  await store.close();
  console.log(
    JSON.stringify({
      engine,
      leads: LEADS,
      importSeconds: Math.round(importSeconds * 100) / 100,
      usPerCall: us,
    }),
  );
} finally {
  if (engine === 'postgres') await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
