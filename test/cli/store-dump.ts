import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { StoreLocation } from '../../src/open-store.js';

export type StoreDump = Record<string, unknown[]>;

/** The data tables and the order their rows are listed in, the same on every engine. */
const ORDER: Record<string, string> = {
  teams: 'id',
  members: 'id',
  subteams: 'id',
  subteam_members: 'subteam_id, member_id',
  leads: 'seq',
  api_keys: 'id',
};

/** Every row of every data table of a SQLite file, in a stable order: "the store as it was", for before/after checks. */
export function dumpStore(path: string): StoreDump {
  const db = new Database(path, { readonly: true });
  try {
    const out: StoreDump = {};
    for (const [table, by] of Object.entries(ORDER))
      out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY ${by}`).all();
    return out;
  } finally {
    db.close();
  }
}

/**
 * The same dump of a PostgreSQL store (the URL's `search_path` names its schema). Rows become
 * plain objects — the driver's result arrays carry connection state that differs from query to
 * query — with BIGINTs as numbers and booleans as 1/0, as SQLite gives them; BYTEA stays a Buffer.
 */
export async function dumpPostgres(url: string): Promise<StoreDump> {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    types: {
      int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) },
    },
  });
  try {
    const out: StoreDump = {};
    for (const [table, by] of Object.entries(ORDER)) {
      const rows = await sql.unsafe<Record<string, unknown>[]>(`SELECT * FROM ${table} ORDER BY ${by}`);
      out[table] = rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([column, v]) => [column, typeof v === 'boolean' ? Number(v) : v]),
        ),
      );
    }
    return out;
  } finally {
    await sql.end();
  }
}

/** Dumps the store at `location`, whichever engine holds it. */
export async function dumpLocation(location: StoreLocation): Promise<StoreDump> {
  return location.databaseUrl === null ? dumpStore(location.dbPath) : dumpPostgres(location.databaseUrl);
}
