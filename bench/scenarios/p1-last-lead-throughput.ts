/**
 * P1: getLastLead's throughput at 10 connections against bare node:http answering a constant
 * array (the target), against node:http doing only getLastLead's own work on the same SQLite
 * store, and against the raw driver running the same query in-process (reference points).
 */
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { PG_LEAD_QUERIES } from '../../src/storage/postgres/postgres-leads.js';
import { LEAD_QUERIES } from '../../src/storage/sqlite/sqlite-leads.js';
import { type Engine, MAIN, SECONDS } from '../harness/config.js';
import { add, engineName, int, med, type Row, sizeName } from '../harness/figures.js';
import { type Job, loadJob } from '../harness/jobs.js';
import { referenceServer, type Served, v1 } from '../harness/servers.js';
import type { Req } from '../load.js';

export interface P1References {
  bare: Req;
  sameWork: Req | null;
}

/** Starts bare node:http, and node:http doing getLastLead's own work on the same (1M) SQLite store. */
export async function startReferences(served: Served[]): Promise<P1References> {
  const bare = await referenceServer('node:http', 'reference-http.ts', [], '/');
  const sameWorkStore = served.find((s) => s.engine === 'sqlite' && s.size === MAIN);
  let sameWork: Req | null = null;
  if (sameWorkStore !== undefined) {
    const server = await referenceServer(
      'node:http same work',
      'reference-same-work.ts',
      [sameWorkStore.where],
      '/healthz',
    );
    sameWork = { url: `${server.url}/api/pub/leads/getLastLead`, auth: `Bearer ${sameWorkStore.key}` };
  }
  return { bare: { url: `${bare.url}/` }, sameWork };
}

export const referenceJobs = (refs: P1References): Job[] => [
  loadJob('bare', refs.bare, 10),
  ...(refs.sameWork === null ? [] : [loadJob('samework', refs.sameWork, 10)]),
];

export const lastLeadJob = (s: Served): Job =>
  loadJob(`last.c10.${s.engine}.${s.size}`, v1(s, 'getLastLead'), 10);

export const rawDriverJob = (s: Served): Job => ({
  name: `rawdriver.${s.engine}.${s.size}`,
  run: async () =>
    add(`rawdriver.${s.engine}.${s.size}.qps`, await rawLastLeadQps(s, Math.max(1, SECONDS / 2))),
});

/** The raw driver running getLastLead's query in-process, as fast as it goes: queries a second. */
async function rawLastLeadQps(s: Served, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let n = 0;
  if (s.engine === 'sqlite') {
    const db = new Database(s.where, { readonly: true });
    const stmt = db.prepare(LEAD_QUERIES.lastOfMember).raw(true);
    while (performance.now() < until) {
      for (let i = 0; i < 100; i++) stmt.get(1, 1);
      n += 100;
    }
    db.close();
  } else {
    const sql = postgres(s.where, { max: 10, onnotice: () => {} });
    await sql.unsafe(PG_LEAD_QUERIES.lastOfMember, [1, 1], { prepare: true });
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (performance.now() < until) {
          await sql.unsafe(PG_LEAD_QUERIES.lastOfMember, [1, 1], { prepare: true }).raw();
          n++;
        }
      }),
    );
    await sql.end();
    return n / ((performance.now() - t0) / 1000);
  }
  return n / seconds;
}

export function rows(engine: Engine): Row[] {
  const bare = med('bare.rps');
  const tm = `${engine}.${MAIN}`;
  const out: Row[] = [
    {
      id: engine === 'sqlite' ? 'P1' : 'P1 (PostgreSQL, no target)',
      what: `getLastLead throughput ÷ bare node:http, ${sizeName(MAIN)} leads, ${engineName(engine)}`,
      measured: med(`last.c10.${tm}.rps`) / bare,
      target: engine === 'sqlite' ? 0.7 : Number.NaN,
      sense: 'ge',
      detail: `${int(med(`last.c10.${tm}.rps`))} vs ${int(bare)} req/s, 10 connections`,
    },
  ];
  if (engine === 'sqlite')
    out.push({
      id: 'P1 (same work, no target)',
      what: `getLastLead throughput ÷ node:http doing only getLastLead's work (key check, the query, the v1 body), ${sizeName(MAIN)} leads, SQLite`,
      measured: med(`last.c10.${tm}.rps`) / med('samework.rps'),
      target: Number.NaN,
      sense: 'ge',
      detail: `${int(med(`last.c10.${tm}.rps`))} vs ${int(med('samework.rps'))} req/s, 10 connections`,
    });
  return out;
}
