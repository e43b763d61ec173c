/**
 * The store the webhook benches deliver from (bench/webhooks.ts, bench/pg-dispatch.ts): a fresh,
 * migrated store of its own (a SQLite file in a temporary folder, or a PostgreSQL schema of its
 * own, no ANALYZE: as where autovacuum is off), team 1 with its admin, member 11; leads imported
 * through leadline's import, and the one endpoint the team's events go to.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import postgres from 'postgres';
import { importRecords } from '../../src/io/import/run-import.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { type Engine, PG_BASE } from './config.js';

/** A fresh store with team 1 and its admin (member 11); `done` closes and removes it. */
export async function openOutboxStore(engine: Engine): Promise<{ store: Store; done: () => Promise<void> }> {
  let store: Store;
  let remove: () => Promise<void>;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-outbox-'));
    store = SqliteStore.open(join(dir, 'bench.db'));
    remove = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = `bench_${randomBytes(5).toString('hex')}`;
    const admin = postgres(PG_BASE, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    store = PostgresStore.open(`${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}search_path=${schema}`);
    remove = async () => {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    };
  }
  await store.migrate();
  await loadRecords(store, [
    { type: 'team', id: 1, name: 'Bench' },
    { type: 'member', id: 11, teamId: 1, email: 'bench@bench.test', role: 'admin', pid: 'p' },
  ]);
  return {
    store,
    done: async () => {
      await store.close();
      await remove();
    },
  };
}

/** Import records (NDJSON objects) through leadline's import, one transaction. */
export const loadRecords = (store: Store, records: object[]) =>
  importRecords(store, [
    { name: 'bench.ndjson', open: () => Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]) },
  ]);

/** `n` leads of member 11, `prefix-from` onwards, each with a name and an e-mail. */
export const benchLeads = (prefix: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'lead',
    userId: 11,
    id: `${prefix}-${from + i}`,
    epoch: 1_750_000_000_000 + from + i,
    isLead: true,
    name: `Bench ${from + i}`,
    email: `${prefix}${from + i}@bench.test`,
  }));

/** Team 1's endpoint for `lead.created`, at `url`. */
export const addBenchEndpoint = (store: Store, url: string) =>
  store.webhooks.addEndpoint({
    teamId: 1,
    url,
    description: null,
    eventTypes: ['lead.created'],
    members: null,
    subteams: null,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    createdAt: Date.now() - 1000,
  });
