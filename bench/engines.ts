/**
 * Side by side, in one run: import rate and request throughput of leadline on SQLite and on
 * PostgreSQL, with bare node:http as the reference. Sizing figures for docs/scaling.md.
 *
 *   npm run bench:engines            (BENCH_LEADS=200000 BENCH_SECONDS=5 BENCH_ROUNDS=3 by default)
 *
 * Servers run pinned to CPU 0, this process (the load generator) to CPU 1.
 */
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { seedRecords } from '../src/demo/seed.js';
import { fileSource, importRecords } from '../src/io/import/run-import.js';
import { createKey } from '../src/keys/create-key.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/store.js';
import { BIN, freePort, load, machine, median, startPinned, stop, type Target } from './lib.js';

const LEADS = Number(process.env.BENCH_LEADS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PG_URL = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
const schema = `bench_${process.pid}`;
const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });

async function writeData(): Promise<string> {
  const file = join(dir, 'leads.ndjson');
  const out = createWriteStream(file);
  for (const line of seedRecords({ teams: 10, membersPerTeam: 20, leads: LEADS, seed: 'bench' })) {
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  return file;
}

async function timedImport(store: Store, file: string): Promise<number> {
  await store.migrate();
  const t0 = performance.now();
  await importRecords(store, [fileSource(file)]);
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const file = await writeData();
  const pgUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}search_path=${schema}`;
  const sqlitePath = join(dir, 'leadline.db');

  // Import, alternating engines; the last round's stores are the ones served.
  const importSeconds: Record<string, number[]> = { sqlite: [], postgres: [] };
  for (let round = 0; round < ROUNDS; round++) {
    rmSync(sqlitePath, { force: true });
    rmSync(`${sqlitePath}-wal`, { force: true });
    rmSync(`${sqlitePath}-shm`, { force: true });
    const lite = SqliteStore.open(sqlitePath);
    importSeconds.sqlite!.push(await timedImport(lite, file));
    await lite.close();
    await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    const pg = PostgresStore.open(pgUrl);
    importSeconds.postgres!.push(await timedImport(pg, file));
    await pg.close();
  }

  // The same admin (member 1) on both stores.
  const keys: Record<string, string> = {};
  for (const [name, store] of [
    ['sqlite', SqliteStore.open(sqlitePath)],
    ['postgres', PostgresStore.open(pgUrl)],
  ] as const) {
    await store.migrate();
    keys[name] = (await createKey(store, { member: 1 })).key;
    await store.close();
  }

  const env = { LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '1000000000' };
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const targets: Target[] = [
    await startPinned(
      'node:http',
      0,
      ['--import', 'tsx', 'bench/reference-http.ts', String(ports[0])],
      {},
      `http://127.0.0.1:${ports[0]}/`,
    ),
    await startPinned(
      'sqlite',
      0,
      [BIN, '--db', sqlitePath, 'serve', '--port', String(ports[1])],
      env,
      `http://127.0.0.1:${ports[1]}/healthz`,
    ),
    await startPinned(
      'postgres',
      0,
      [BIN, '--database-url', pgUrl, 'serve', '--port', String(ports[2])],
      env,
      `http://127.0.0.1:${ports[2]}/healthz`,
    ),
  ];
  const results: Record<string, { rps: number[]; p50: number[]; p99: number[]; errors: number }> = {};
  try {
    for (const t of targets)
      await load(
        `${t.url}${t.name === 'node:http' ? '/' : '/api/pub/leads/getLastLead'}`,
        { authorization: `Bearer ${keys[t.name] ?? ''}` },
        1,
      );
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        const path = t.name === 'node:http' ? '/' : '/api/pub/leads/getLastLead';
        const r = await load(`${t.url}${path}`, { authorization: `Bearer ${keys[t.name] ?? ''}` }, SECONDS);
        const acc = results[t.name] ?? { rps: [], p50: [], p99: [], errors: 0 };
        results[t.name] = acc;
        acc.rps.push(r.rps);
        acc.p50.push(r.p50);
        acc.p99.push(r.p99);
        acc.errors += r.errors;
      }
    }
  } finally {
    for (const t of targets) await stop(t);
  }

  const bare = median(results['node:http']!.rps);
  const imp = (e: string) => median(importSeconds[e]!);
  const lines = [
    '# Engines side by side',
    '',
    `${machine()}. Command: \`npm run bench:engines\` (BENCH_LEADS=${LEADS}, ${ROUNDS} alternated rounds of ${SECONDS} s, 10 connections; servers on CPU 0, load generator on CPU 1). Medians.`,
    '',
    '| what | SQLite | PostgreSQL | PostgreSQL / SQLite |',
    '|---|---|---|---|',
    `| import of ${LEADS} leads (s) | ${imp('sqlite').toFixed(1)} | ${imp('postgres').toFixed(1)} | ${(imp('postgres') / imp('sqlite')).toFixed(2)} |`,
    `| import rate (leads/s) | ${Math.round(LEADS / imp('sqlite'))} | ${Math.round(LEADS / imp('postgres'))} | ${(imp('sqlite') / imp('postgres')).toFixed(2)} |`,
    `| getLastLead (req/s) | ${Math.round(median(results.sqlite!.rps))} | ${Math.round(median(results.postgres!.rps))} | ${(median(results.postgres!.rps) / median(results.sqlite!.rps)).toFixed(2)} |`,
    `| getLastLead ÷ bare node:http (${Math.round(bare)} req/s) | ${(median(results.sqlite!.rps) / bare).toFixed(2)} | ${(median(results.postgres!.rps) / bare).toFixed(2)} | |`,
    `| getLastLead p50 / p99 (ms) | ${median(results.sqlite!.p50)} / ${median(results.sqlite!.p99)} | ${median(results.postgres!.p50)} / ${median(results.postgres!.p99)} | |`,
    `| errors | ${results.sqlite!.errors} | ${results.postgres!.errors} | |`,
    '',
  ];
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  writeFileSync(new URL('./results/engines.md', import.meta.url), text);
}

try {
  await main();
} finally {
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
