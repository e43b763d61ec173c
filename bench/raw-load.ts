/**
 * The raw drivers' bulk load (P5's reference): the rows an import left in the store, dumped once,
 * then loaded into a fresh store of the same schema by the driver alone — better-sqlite3
 * prepared INSERTs in one transaction (same pragmas as leadline: WAL, synchronous=NORMAL, 64 MB
 * cache), PostgreSQL `COPY … FROM STDIN` through postgres.js in one transaction. Both read their
 * rows from a file, as the import reads its NDJSON.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { leadText, paddedWords } from '../src/leads/text.js';

const DIRECTORY = ['teams', 'members', 'subteams', 'subteam_members'];
const TEXT_COLUMNS = ['first_name', 'last_name', 'full_name', 'email', 'company_name', 'job_title', 'note'];

/** Writes one file per table (JSON arrays, one row a line); returns the tables with their columns. */
export function dumpSqlite(dbPath: string, dir: string): { table: string; columns: string[] }[] {
  const db = new Database(dbPath, { readonly: true });
  const out: { table: string; columns: string[] }[] = [];
  try {
    for (const table of [...DIRECTORY, 'leads']) {
      const stmt = db.prepare(`SELECT * FROM ${table}`);
      const columns = stmt.columns().map((c) => c.name);
      const lines: string[] = [];
      for (const row of stmt.raw(true).iterate()) lines.push(JSON.stringify(row));
      writeFileSync(join(dir, `raw-${table}.ndjson`), lines.join('\n'));
      out.push({ table, columns });
    }
    // lead_text is contentless (SQLite migration 4): its columns read back as NULL, so its rows
    // are derived from the leads, as import derives them.
    const lines: string[] = [];
    const leads = db.prepare('SELECT seq, fields, first_name, last_name FROM leads').raw(true).iterate();
    for (const [seq, fields, firstName, lastName] of leads as Iterable<
      [number, string, string | null, string | null]
    >) {
      const text = leadText(JSON.parse(fields), { firstName, lastName });
      lines.push(JSON.stringify([seq, ...text.map(paddedWords)]));
    }
    writeFileSync(join(dir, 'raw-lead_text.ndjson'), lines.join('\n'));
    out.push({ table: 'lead_text', columns: ['rowid', ...TEXT_COLUMNS] });
  } finally {
    db.close();
  }
  return out;
}

/** Loads the dump into the (migrated, empty) store at `dbPath`; returns seconds. */
export function loadSqlite(
  dbPath: string,
  dir: string,
  tables: { table: string; columns: string[] }[],
): number {
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
      for (const line of text.split('\n')) insert.run(JSON.parse(line) as unknown[]);
    }
    db.exec('COMMIT');
    return (performance.now() - t0) / 1000;
  } finally {
    db.close();
  }
}

const PG_TABLES = [...DIRECTORY, 'leads'];

/**
 * `COPY <schema>.<table> TO STDOUT` (text format) into one file per table, through psql: a
 * postgres.js `COPY … TO STDOUT` readable sometimes never ends on a small table (seen here).
 */
export function dumpPostgres(baseUrl: string, schema: string, dir: string): void {
  for (const table of PG_TABLES) {
    execFileSync('psql', [
      baseUrl,
      '-v',
      'ON_ERROR_STOP=1',
      '-qc',
      `\\copy ${schema}.${table} TO '${join(dir, `raw-pg-${table}.copy`)}'`,
    ]);
  }
}

/** `COPY <table> FROM STDIN` of every dumped table, in one transaction; returns seconds. */
export async function loadPostgres(url: string, dir: string): Promise<number> {
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
