import type { Sql, TransactionSql } from 'postgres';

/**
 * Where pg_trgm lives. An extension is installed once per database, in one schema, whatever
 * schema each leadline store uses: so its operator class, operators and functions are always
 * named with that schema (`public.gin_trgm_ops`, `OPERATOR(public.<%)`), never found through the
 * store's search_path, which need not include it (docs/scaling.md "Several stores in one database").
 */

/** Where pg_trgm is created when the database has none: shared, so no store's schema owns it. */
export const TRIGRAM_HOME = 'public';

/** A schema name as SQL: double-quoted, quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The (unquoted) schema pg_trgm is installed in, or null when the database has none. */
export async function trigramSchema(sql: Sql | TransactionSql): Promise<string | null> {
  const [row] = await sql<{ schema: string }[]>`SELECT n.nspname AS schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`;
  return row?.schema ?? null;
}

/**
 * pg_trgm's schema, quoted; the extension is created in TRIGRAM_HOME first when absent. A plain
 * `CREATE EXTENSION` would put it in the first schema of the search_path — a store's own schema,
 * which would take it along when dropped, and which other stores' paths do not name.
 */
export async function ensureTrigram(tx: TransactionSql): Promise<string> {
  const found = await trigramSchema(tx);
  if (found !== null) return quoteIdent(found);
  try {
    await tx.unsafe(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA ${quoteIdent(TRIGRAM_HOME)}`);
  } catch (err) {
    throw new Error(
      `pg_trgm is not installed and cannot be created in schema ${TRIGRAM_HOME} (${(err as Error).message}); ` +
        'install it once, in any schema, e.g. as the database owner: CREATE EXTENSION pg_trgm SCHEMA public',
    );
  }
  return quoteIdent(TRIGRAM_HOME);
}

/**
 * The quoted schema for queries, looked up on first use and kept: the extension does not move
 * under a running service (an operator who relocates it restarts the instances). A failed
 * look-up (database down) is not kept, so the next search asks again.
 */
export class TrigramSchema {
  private known: string | null = null;

  constructor(private readonly sql: Sql) {}

  async get(): Promise<string> {
    if (this.known !== null) return this.known;
    const found = await trigramSchema(this.sql);
    if (found === null) throw new Error('pg_trgm is not installed in this database: run leadline migrate');
    this.known = quoteIdent(found);
    return this.known;
  }
}
