/** How an instance uses PostgreSQL (LEADLINE_PG_*: docs/scaling.md), apart from where it is. */
export interface PostgresOptions {
  /** Most connections this instance opens (the pool is bounded). */
  poolMax: number;
  connectTimeoutSeconds: number;
  /** Server-side limit for one statement on request paths. */
  statementTimeoutMs: number;
  /** Extra server parameters, e.g. a search_path (tests give each store its own schema). */
  serverParams?: Record<string, string>;
}

export const DEFAULT_POSTGRES_OPTIONS: PostgresOptions = {
  poolMax: 10,
  connectTimeoutSeconds: 10,
  statementTimeoutMs: 30_000,
};
