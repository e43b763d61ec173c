import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type ImportSummary, importRecords } from '../../src/io/import/run-import.js';
import { type CreateKeyInput, createKey } from '../../src/keys/create-key.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';

/** A fresh, migrated store in its own temporary directory; `cleanup` removes both. */
export async function makeStore(): Promise<{ store: Store; path: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-test-'));
  const path = join(dir, 'leadline.db');
  const store = SqliteStore.open(path);
  await store.migrate();
  return {
    store,
    path,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The smallest store a server test needs: team 1, its admin (member 1) and one lead of theirs. */
export const ONE_LEAD: object[] = [
  { type: 'team', id: 1, name: 'T' },
  { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: '1' },
  { type: 'lead', userId: 1, id: 'x', epoch: 1000, isLead: true },
];

/** Imports records (objects, one per NDJSON line) as if they came from a file named `name`. */
export async function load(store: Store, records: object[], name = 'fixture.ndjson'): Promise<ImportSummary> {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  return importRecords(store, [{ name, size: Buffer.byteLength(text), open: () => Readable.from([text]) }]);
}

export async function keyFor(store: Store, input: CreateKeyInput | number | string): Promise<string> {
  const created = await createKey(store, typeof input === 'object' ? input : { member: input });
  return created.key;
}

export function testConfig(env: Record<string, string> = {}): Config {
  // Quotas out of the way of suites that send many requests (and many bad keys) from one address.
  return loadConfig({ LEADLINE_RATE_LIMIT: '100000', LEADLINE_AUTH_FAILURE_LIMIT: '1000000', ...env });
}

export async function makeApp(store: Store, env: Record<string, string> = {}): Promise<FastifyInstance> {
  return buildApp({ config: testConfig(env), store });
}

/** Authorization header for a key. */
/**
 * `key` with its last character changed: a key that is not the real one, whatever the real one
 * ends with (changing the last character to a fixed one fails once in the alphabet's size).
 */
export function tamperedKey(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
}

export function auth(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

/**
 * Retries `check` until it passes or `ms` have gone by, then throws its last failure. For
 * PostgreSQL's change feed: a lead appears there only once every transaction older than it has
 * ended, anywhere on the server — other test files' imports included — so the feed may be a
 * moment behind what was just stored. On SQLite the first try passes.
 */
export async function eventually<T>(check: () => Promise<T>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
