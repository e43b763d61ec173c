/**
 * The raw drivers' bulk load (P5's reference): the rows an import left in the store, dumped once
 * (here), then loaded into a fresh store of the same schema by the driver alone
 * (bench/raw-load-process.mjs: in this process, or as a process of its own).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { leadText, paddedWords } from '../src/leads/text.js';
import { PG_TABLES } from './raw-load-process.mjs';

export { loadPostgres, loadSqlite } from './raw-load-process.mjs';

const DIRECTORY = ['teams', 'members', 'subteams', 'subteam_members'];
const TEXT_COLUMNS = ['first_name', 'last_name', 'full_name', 'email', 'company_name', 'job_title', 'note'];

/** Writes one file per table (JSON arrays, one row a line); returns the tables with their columns. */
export function dumpSqlite(dbPath: string, dir: string): { table: string; columns: string[] }[] {
  const db = new Database(dbPath, { readonly: true });
  const out: { table: string; columns: string[] }[] = [];
  try {
    for (const table of [...DIRECTORY, 'leads', 'webhook_events']) {
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
