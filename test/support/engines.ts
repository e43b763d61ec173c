import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { StoreLocation } from '../../src/open-store.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import type { Store } from '../../src/store.js';
import { makeStore } from './helpers.js';

export type EngineName = 'sqlite' | 'postgres';

/**
 * The PostgreSQL server tests use: LEADLINE_TEST_DATABASE_URL (.ci/run sets it). Under CI=true
 * its absence is an error — a missing server fails the run, it never skips the engine.
 */
export function testDatabaseUrl(env = process.env): string | null {
  const url = env.LEADLINE_TEST_DATABASE_URL || null;
  if (url === null && env.CI === 'true') {
    throw new Error(
      'CI=true but LEADLINE_TEST_DATABASE_URL is not set: the PostgreSQL suites cannot be skipped in CI',
    );
  }
  return url;
}

/**
 * Engines a suite runs on: LEADLINE_TEST_ENGINES (comma-separated) if set, else SQLite and —
 * when a test database is configured — PostgreSQL. Naming an unknown engine is an error.
 */
export function enginesUnderTest(env = process.env): EngineName[] {
  const named = env.LEADLINE_TEST_ENGINES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (named === undefined) return testDatabaseUrl(env) === null ? ['sqlite'] : ['sqlite', 'postgres'];
  for (const n of named)
    if (n !== 'sqlite' && n !== 'postgres') throw new Error(`unknown engine ${JSON.stringify(n)}`);
  return named as EngineName[];
}

export interface EngineStore {
  store: Store;
  /** Where the store is, for the `leadline` command and server processes. */
  location: StoreLocation;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated store on `engine`; on PostgreSQL a schema of its own, dropped by cleanup, and
 * the only schema on its search_path — as an operator running several stores in one database
 * would set it. pg_trgm is wherever the database has it (made in public by the first migration):
 * the store must find it without the path's help (issue 20 §2).
 */
export async function makeEngineStore(engine: EngineName): Promise<EngineStore> {
  if (engine === 'sqlite') {
    const made = await makeStore();
    return { store: made.store, location: { dbPath: made.path, databaseUrl: null }, cleanup: made.cleanup };
  }
  const base = testDatabaseUrl();
  if (base === null) throw new Error('the postgres engine needs LEADLINE_TEST_DATABASE_URL');
  const schema = `lt_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const url = schemaUrl(base, schema);
  const store = PostgresStore.open(url);
  await store.migrate();
  return {
    store,
    location: { dbPath: '', databaseUrl: url },
    cleanup: async () => {
      await store.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** `base` with its search_path set to `schema` alone. */
export function schemaUrl(base: string, schema: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}search_path=${schema}`;
}
