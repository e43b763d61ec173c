/**
 * P8 — a feed that waits (issue 41 §2): from a lead's creation to its receipt by a long-poll
 * client (`wait=30`) and a Server-Sent Events client of GET /api/pub/v2/leads/changes, p50 and
 * p99 over N sequential creations.
 *
 *   taskset -c 1 node --import tsx bench/feed-wait.ts [sqlite|postgres] [one|two] [N]
 *
 * `one`: the creations go to the instance the clients wait on; `two` (PostgreSQL only): to a
 * second instance (its own store and pool on the same schema), so every wake-up crosses
 * LISTEN/NOTIFY. The clock starts as the creating POST is *sent* and stops when a client has
 * parsed the lead out of its answer, so each figure includes the creation itself (its time is
 * printed beside, `create p50`) — an upper bound on "from the commit". Creations are one at a
 * time: the next is sent once both clients have the previous one. Servers and clients share
 * this process (and its event loop), as two instances on one host would share CPUs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { importRecords } from '../src/io/import/run-import.js';
import { createKey } from '../src/keys/create-key.js';
import { PostgresStore } from '../src/storage/postgres/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store } from '../src/store.js';
import { machine } from './lib.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const mode = (process.argv[3] ?? 'one') as 'one' | 'two';
const N = Number(process.argv[4] ?? (process.env.BENCH_SMOKE === '1' ? 20 : 500));
if (mode === 'two' && engine !== 'postgres') throw new Error('two instances: PostgreSQL only');
const CHANGES = '/api/pub/v2/leads/changes';

interface Opened {
  stores: Store[];
  done: () => Promise<void>;
}

async function openStores(count: number): Promise<Opened> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-feed-'));
    const store = SqliteStore.open(join(dir, 'bench.db'));
    await store.migrate();
    return {
      stores: [store],
      done: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const base = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const url = `${base}${base.includes('?') ? '&' : '?'}search_path=${schema}`;
  const stores = Array.from({ length: count }, () => PostgresStore.open(url));
  await stores[0]!.migrate();
  return {
    stores,
    done: async () => {
      for (const s of stores) await s.close();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** Receipt times by leadId, and a way to wait for one. */
class Receipts {
  readonly at = new Map<string, number>();
  private waiting = new Map<string, () => void>();
  got(leadId: string): void {
    if (this.at.has(leadId)) return;
    this.at.set(leadId, performance.now());
    this.waiting.get(leadId)?.();
  }
  until(leadId: string, ms = 10_000): Promise<void> {
    if (this.at.has(leadId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${leadId} not received in ${ms} ms`)), ms);
      this.waiting.set(leadId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

async function longPoller(base: string, key: string, receipts: Receipts, stop: AbortSignal): Promise<void> {
  const headers = { authorization: `Bearer ${key}` };
  let cursor = '';
  while (!stop.aborted) {
    const q = cursor === '' ? '?wait=30' : `?wait=30&cursor=${encodeURIComponent(cursor)}`;
    const res = await fetch(`${base}${CHANGES}${q}`, { headers, signal: stop }).catch(() => null);
    if (res === null) return;
    const body = (await res.json()) as { data: { leads: { leadId: string }[]; pollCursor: string } };
    for (const l of body.data.leads) receipts.got(l.leadId);
    cursor = body.data.pollCursor;
  }
}

async function streamer(base: string, key: string, receipts: Receipts, stop: AbortSignal): Promise<void> {
  const res = await fetch(`${base}${CHANGES}`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: stop,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.includes('event: lead')) {
        const data = block.split('\n').find((l) => l.startsWith('data: '))!;
        receipts.got((JSON.parse(data.slice(6)) as { leadId: string }).leadId);
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

async function main(): Promise<void> {
  const opened = await openStores(mode === 'two' ? 2 : 1);
  const [waitOn, writeTo = waitOn] = opened.stores as [Store, Store?];
  const apps: FastifyInstance[] = [];
  const stop = new AbortController();
  try {
    const records = [
      { type: 'team', id: 1, name: 'Bench' },
      { type: 'member', id: 11, teamId: 1, email: 'bench@bench.test', role: 'admin', pid: 'p' },
    ];
    await importRecords(waitOn, [
      { name: 'bench.ndjson', open: () => Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]) },
    ]);
    const key = (await createKey(waitOn, { member: 11 })).key;
    const config = loadConfig({ ...process.env, LEADLINE_RATE_LIMIT: '1000000' });
    const serve = async (store: Store) => {
      const app = await buildApp({ config, store });
      apps.push(app);
      return app.listen({ host: '127.0.0.1', port: 0 });
    };
    const waitBase = await serve(waitOn);
    const writeBase = writeTo === waitOn ? waitBase : await serve(writeTo);
    const polled = new Receipts();
    const streamed = new Receipts();
    const clients = [
      longPoller(waitBase, key, polled, stop.signal),
      streamer(waitBase, key, streamed, stop.signal),
    ];
    const poll: number[] = [];
    const sse: number[] = [];
    const create: number[] = [];
    const body = (i: number) =>
      JSON.stringify({
        leadSource: 'QR_CODE_SCAN',
        captureDatetime: new Date().toISOString(),
        systemFields: { fullName: `Feed ${i}` },
      });
    // A few unmeasured rounds first: connections, the LISTEN, JIT.
    for (let i = -10; i < N; i++) {
      const t0 = performance.now();
      const res = await fetch(`${writeBase}/api/pub/v2/leads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body(i),
      });
      const created = performance.now();
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      const { leadId } = ((await res.json()) as { data: { leadId: string } }).data;
      await Promise.all([polled.until(leadId), streamed.until(leadId)]);
      if (i < 0) continue;
      create.push(created - t0);
      poll.push(polled.at.get(leadId)! - t0);
      sse.push(streamed.at.get(leadId)! - t0);
    }
    const f = (x: number) => x.toFixed(1);
    const where = mode === 'two' ? 'two instances' : 'one instance';
    console.log(`P8 ${engine}, ${where}, ${N} creations — ${machine()}`);
    console.log('| engine | instances | client | p50 ms | p99 ms | max ms | create p50 ms |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, xs] of [
      ['long-poll', poll],
      ['SSE', sse],
    ] as const) {
      console.log(
        `| ${engine} | ${mode === 'two' ? 2 : 1} | ${name} | ${f(pct(xs, 50))} | ${f(pct(xs, 99))} | ${f(Math.max(...xs))} | ${f(pct(create, 50))} |`,
      );
    }
    stop.abort();
    await Promise.allSettled(clients);
  } finally {
    stop.abort();
    for (const app of apps) await app.close();
    await opened.done();
  }
}

await main();
