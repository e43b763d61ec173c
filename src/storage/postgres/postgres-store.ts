import postgres, { type Sql } from 'postgres';
import type { RateLimiter } from '../../domain/rate-limit.js';
import type { ImportWriter, MigrationReport, Store } from '../store.js';
import { migrate } from './migrations.js';
import { PostgresDirectoryStore } from './postgres-directory.js';
import { PostgresImportWriter } from './postgres-import.js';
import { PostgresKeyStore } from './postgres-keys.js';
import { PostgresLeadStore } from './postgres-leads.js';
import { PostgresRateLimiter } from './postgres-rate-limit.js';

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

/** Identifiers and counts are BIGINT; every value we store fits a JS number exactly. */
const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (x: number) => String(x),
  parse: (x: string) => Number(x),
};

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  readonly leads: PostgresLeadStore;
  readonly directory: PostgresDirectoryStore;
  readonly keys: PostgresKeyStore;

  private constructor(private readonly sql: Sql) {
    this.leads = new PostgresLeadStore(sql);
    this.directory = new PostgresDirectoryStore(sql);
    this.keys = new PostgresKeyStore(sql);
  }

  /** Creates the pool; connections open on first use. Call `migrate()` before using the stores. */
  static open(url: string, options: PostgresOptions = DEFAULT_POSTGRES_OPTIONS): PostgresStore {
    const sql = postgres(url, {
      max: options.poolMax,
      connect_timeout: options.connectTimeoutSeconds,
      idle_timeout: 60,
      onnotice: () => {},
      types: { int8: int8AsNumber },
      connection: {
        application_name: 'leadline',
        statement_timeout: options.statementTimeoutMs,
        ...options.serverParams,
      },
    });
    return new PostgresStore(sql);
  }

  /** Counters in the database, so a per-key limit holds across every instance. */
  createRateLimiter(limit: number, windowSeconds: number): RateLimiter {
    return new PostgresRateLimiter(this.sql, limit, windowSeconds);
  }

  async ping(): Promise<void> {
    await this.sql`SELECT 1`;
  }

  async migrate(): Promise<MigrationReport> {
    return migrate(this.sql);
  }

  async importAtomically<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T> {
    return this.sql.begin(async (tx) => work(await PostgresImportWriter.start(tx))) as Promise<T>;
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}
