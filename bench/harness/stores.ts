/**
 * The stores the benchmark measures: seed files, fresh migrated stores (a SQLite file in the
 * run's temporary folder, or a PostgreSQL schema of its own), filled by leadline's import and
 * settled as an operator would before serving them; and their removal at the end of the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { fileSource, importRecords } from '../../src/io/import/run-import.js';
import { createKey } from '../../src/keys/create-key.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { growPostgres, growSqlite } from '../grow.js';
import { type Engine, log, PG_BASE } from './config.js';
import { add } from './figures.js';

/** The run's temporary folder: SQLite stores, seed files, dumps. */
export const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
const admin = postgres(PG_BASE, { max: 1, onnotice: () => {} });
const schemas: string[] = [];

export { writeSeed } from './seed-file.js';

/** The PostgreSQL schema of the store called `name` in this run. */
export const schemaName = (name: string) => `bench_${process.pid}_${name}`;

async function pgSchema(name: string): Promise<string> {
  const schema = schemaName(name);
  if (!schemas.includes(schema)) schemas.push(schema);
  // pg_trgm lives in public, shared: a schema dropped later must not take it along.
  await admin.unsafe('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').catch(() => {});
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  return `${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}search_path=${schema}%2Cpublic`;
}

/**
 * Writes out every dirty buffer and starts the server's WAL afresh (`CHECKPOINT`), so a timed
 * write starts from the same server state as the one it is compared with. An import of 100k
 * leads writes ~400 MB of WAL: at the default max_wal_size (1 GB) the server checkpoints every
 * two or three of them, inside whichever run happens to cross the line.
 */
export async function checkpoint(): Promise<void> {
  await admin.unsafe('CHECKPOINT');
}

function sqlitePath(name: string): string {
  const p = join(dir, `${name}.db`);
  for (const s of ['', '-wal', '-shm']) rmSync(`${p}${s}`, { force: true });
  return p;
}

/** A fresh, migrated store; `where` is the file (SQLite) or URL (PostgreSQL). */
export async function freshStore(engine: Engine, name: string): Promise<{ store: Store; where: string }> {
  const where = engine === 'sqlite' ? sqlitePath(name) : await pgSchema(name);
  const store = engine === 'sqlite' ? SqliteStore.open(where) : PostgresStore.open(where);
  await store.migrate();
  return { store, where };
}

export async function timedImport(store: Store, file: string): Promise<number> {
  const t0 = performance.now();
  await importRecords(store, [fileSource(file)]);
  return (performance.now() - t0) / 1000;
}

/** A store filled and settled for serving, and a v1-capable key to read it with. */
export interface Prepared {
  engine: Engine;
  size: number;
  where: string;
  key: string;
}

/** Imports `imported` leads from `file`, copies them up to `size` in SQL if larger, settles. */
export async function prepare(
  engine: Engine,
  size: number,
  file: string,
  imported: number,
): Promise<Prepared> {
  const { store, where } = await freshStore(engine, `s${size}`);
  const seconds = await timedImport(store, file);
  add(`setup.import.${engine}.${size}`, seconds);
  log(`imported ${imported} leads into ${engine} in ${seconds.toFixed(1)} s`);
  if (size > imported) {
    const t0 = performance.now();
    if (engine === 'sqlite') growSqlite(where, size / imported);
    else await growPostgres(where, size / imported);
    const grown = (performance.now() - t0) / 1000;
    add(`setup.grow.${engine}.${size}`, grown);
    log(`copied them to ${size} leads in ${engine} in ${grown.toFixed(1)} s`);
  }
  // Keys made after the v1 freeze are refused by v1 unless granted legacy access.
  const { key } = await createKey(store, { member: 1, legacyV1: true });
  // BENCH_BROWNOUT_AHEAD=1: a v1 brownout 5 days ahead of every key, so every v1 answer carries
  // the `Warning` of issue 42 (its cost beside a run without).
  if (process.env.BENCH_BROWNOUT_AHEAD === '1') {
    const at = Date.now() + 5 * 86_400_000;
    await store.retirement.addBrownout({
      startsAt: at,
      endsAt: at + 3_600_000,
      keyIds: null,
      createdAt: Date.now(),
    });
  }
  await store.close();
  await settle(engine, where);
  return { engine, size, where, key };
}

/**
 * After the bulk load, what an operator's maintenance would do before serving, so that neither
 * leadline nor the in-process references measure it: PostgreSQL VACUUM (ANALYZE) of the store's tables (visibility map,
 * hint bits, planner statistics — otherwise autovacuum does it during the first measurements);
 * SQLite ANALYZE (statistics without STAT4 samples) and a WAL checkpoint that empties the log.
 */
async function settle(engine: Engine, where: string): Promise<void> {
  const t0 = performance.now();
  if (engine === 'sqlite') {
    const db = new Database(where);
    // Without the samples, as leadline keeps an analyzed store (SqliteStore.migrate): with them
    // SQLite re-plans each statement per binding, the raw-driver references included.
    db.exec('ANALYZE; DELETE FROM sqlite_stat4; ANALYZE sqlite_schema');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } else {
    const sql = postgres(where, { max: 1, onnotice: () => {} });
    await sql.unsafe('VACUUM (ANALYZE) leads, members, teams, subteams, subteam_members, api_keys');
    await sql.end();
  }
  log(`settled the ${engine} store in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Drops every schema the run made and removes its temporary folder. */
export async function removeStores(): Promise<void> {
  for (const s of schemas) await admin.unsafe(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => {});
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
