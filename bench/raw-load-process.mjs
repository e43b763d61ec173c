/**
 * P5's reference, the raw drivers' bulk load of the rows an import left (dumped by
 * bench/raw-load.ts): the directory, the leads (on SQLite their search rows too) and the event
 * log's one `lead.created` per lead, which the import writes since the event log (issue 41) and
 * the reference did not load before issue 43's "like for like". better-sqlite3 prepared INSERTs in one transaction (leadline's pragmas: WAL,
 * synchronous=NORMAL, 64 MB cache), or PostgreSQL `COPY … FROM STDIN` through postgres.js in one
 * transaction, each reading its rows from a file as the import reads its NDJSON.
 *
 * Plain JavaScript, so that it can also run as a process of its own with nothing but node —
 * P5 times it from its start to its exit, like `leadline import` (issue 43, "P5 like for like"):
 *
 *   node bench/raw-load-process.mjs sqlite <db file> <dump folder> <tables as JSON>
 *   node bench/raw-load-process.mjs postgres <url> <dump folder>
 *
 * It prints the load's own seconds (from the store opened to the commit).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import postgres from 'postgres';

/** The PostgreSQL tables dumped, in load order. */
export const PG_TABLES = ['teams', 'members', 'subteams', 'subteam_members', 'leads', 'webhook_events'];

/** Loads the dump into the (migrated, empty) SQLite store at `dbPath`; returns seconds. */
export function loadSqlite(dbPath, dir, tables) {
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  try {
    const t0 = performance.now();
    db.exec('BEGIN IMMEDIATE');
    for (const { table, columns } of tables) {
      const insert = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      const text = readFileSync(join(dir, `raw-${table}.ndjson`), 'utf8');
      if (text === '') continue;
      for (const line of text.split('\n')) insert.run(JSON.parse(line));
    }
    db.exec('COMMIT');
    return (performance.now() - t0) / 1000;
  } finally {
    db.close();
  }
}

/** `COPY <table> FROM STDIN` of every dumped table, in one transaction; returns seconds. */
export async function loadPostgres(url, dir) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const t0 = performance.now();
    await sql.begin(async (tx) => {
      for (const table of PG_TABLES) {
        const writable = await tx.unsafe(`COPY ${table} FROM STDIN`).writable();
        await pipeline(createReadStream(join(dir, `raw-pg-${table}.copy`)), writable);
      }
    });
    return (performance.now() - t0) / 1000;
  } finally {
    await sql.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [engine, where, dir, tables] = process.argv.slice(2);
  const seconds =
    engine === 'sqlite'
      ? loadSqlite(where, dir, JSON.parse(tables))
      : engine === 'postgres'
        ? await loadPostgres(where, dir)
        : Number.NaN;
  if (Number.isNaN(seconds)) {
    console.error('usage: node bench/raw-load-process.mjs sqlite|postgres <store> <dump folder> [tables]');
    process.exit(2);
  }
  console.log(seconds);
}
