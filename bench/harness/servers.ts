/**
 * The servers under load, all pinned to CPU 0 (leadline's to BENCH_SERVER_CPUS when set): leadline
 * on each prepared store, the reference servers (bench/reference-*.ts, json-server), and the
 * requests the scenarios send them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, freePort, SERVER_ENV, startPinned, stop, type Target } from '../lib.js';
import type { Req } from '../load.js';
import { PROFILE, PROFILE_DIR, REDIS_URL, SERVER_CPUS } from './config.js';
import { dir, type Prepared } from './stores.js';

const started: Target[] = [];

/** A prepared store and the leadline server answering from it. */
export interface Served extends Prepared {
  server: Target;
  /** A second server on the same store with settings of its own (`redis`, `sync250`); none: the defaults. */
  variant?: string;
}

/**
 * leadline on `p`'s store; `variant` names extra settings (`env`) added to SERVER_ENV. Resolves
 * once the server has dispatched the store's backlog of events (`outboxDrained`): measurements
 * begin on a server at rest, not one draining a fresh import's million events.
 */
export async function serve(
  p: Prepared,
  variant?: string,
  env: Record<string, string> = {},
): Promise<Served> {
  const port = await freePort();
  const tag = `${p.engine}-${p.size}${variant === undefined ? '' : `-${variant}`}`;
  const prof = PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${tag}.cpuprofile`]
    : [];
  const store = p.engine === 'sqlite' ? ['--db', p.where] : ['--database-url', p.where];
  const server = await startPinned(
    `leadline ${tag}`,
    SERVER_CPUS,
    [...prof, BIN, ...store, 'serve', '--port', String(port)],
    { ...SERVER_ENV, ...env },
    `http://127.0.0.1:${port}/healthz`,
  );
  started.push(server);
  const served = { ...p, server, ...(variant === undefined ? {} : { variant }) };
  await outboxDrained(served);
  return served;
}

/** leadline on `p`'s store counting quotas in Redis; fails unless its /readyz says Redis is up. */
export async function serveWithRedis(p: Prepared): Promise<Served> {
  const s = await serve(p, 'redis', { REDIS_URL, LEADLINE_REDIS_PREFIX: `bench_${process.pid}` });
  for (let i = 0; ; i++) {
    const ready = (await (await fetch(`${s.server.url}/readyz`)).json()) as { redis?: string };
    if (ready.redis === 'up') return s;
    if (i === 50) throw new Error(`leadline with REDIS_URL=${REDIS_URL}: /readyz says redis ${ready.redis}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A v1 read of leadline's, with the store's key. */
export const v1 = (s: Served, op: string, query = ''): Req => ({
  url: `${s.server.url}/api/pub/leads/${op}${query}`,
  auth: `Bearer ${s.key}`,
});

/** Starts `bench/<script>` (TypeScript) on a free port, its port then `args` as arguments. */
export async function referenceServer(
  name: string,
  script: string,
  args: string[],
  readyPath: string,
): Promise<Target> {
  const port = await freePort();
  const server = await startPinned(
    name,
    0,
    ['--import', 'tsx', fileURLToPath(new URL(`../${script}`, import.meta.url)), String(port), ...args],
    {},
    `http://127.0.0.1:${port}${readyPath}`,
  );
  started.push(server);
  return server;
}

export async function jsonServer(from: Served): Promise<Target> {
  // The same leads, as leadline's v1 answers them, in json-server's db file.
  const res = await fetch(v1(from, 'getLeadsTimeRangeForTeam', '?start=0').url, {
    headers: { authorization: `Bearer ${from.key}` },
  });
  const leads = (await res.json()) as unknown[];
  const db = join(dir, 'json-server-db.json');
  writeFileSync(db, JSON.stringify({ leads }));
  const port = await freePort();
  const bin = fileURLToPath(new URL('../../node_modules/json-server/lib/cli/bin.js', import.meta.url));
  const t = await startPinned(
    'json-server',
    0,
    [bin, db, '--port', String(port), '--quiet'],
    {},
    `http://127.0.0.1:${port}/leads/${encodeURIComponent(String((leads[0] as { id: string }).id))}`,
  );
  started.push(t);
  return t;
}

/** Stops every server the run started, the last started first. */
export async function stopServers(): Promise<void> {
  for (const t of started.reverse()) await stop(t).catch(() => {});
}

/**
 * Resolves once `s` has dispatched the outbox's backlog — an import logs one event per lead,
 * and a server started on a fresh store dispatches them first (a million: ~9 s on SQLite) — so
 * that a measurement begins on a server at rest (read from its /metrics). `serve` waits on it.
 */
export async function outboxDrained(s: Served, timeoutMs = 1_800_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const res = await fetch(`${s.server.url}/metrics`, {
      headers: { authorization: `Bearer ${SERVER_ENV.LEADLINE_METRICS_TOKEN}` },
    });
    const line = (await res.text())
      .split('\n')
      .find((l) => l.startsWith('leadline_webhook_outbox_depth{') && l.includes('stage="undispatched"'));
    if (line === undefined) throw new Error(`${s.server.name}: no outbox depth in /metrics`);
    if (Number(line.split(' ').at(-1)) === 0) return;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`${s.server.name}: outbox not drained in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
