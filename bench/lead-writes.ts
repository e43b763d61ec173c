/**
 * Issue 39's performance bar over HTTP, side by side in one run: PATCH of an existing lead (a JSON
 * Merge Patch that changes jobTitle, so it really writes; a different lead each time) against
 * POST create, and — to compare trees — v1 getLastLead and a v2 feed page of 100
 * (GET /api/pub/v2/leads/changes at a quarter of the team's feed):
 *
 *   taskset -c 1 node --import tsx bench/lead-writes.ts [sqlite|postgres]
 *   BENCH_BEFORE=/work/wt-before taskset -c 1 node --import tsx bench/lead-writes.ts [sqlite|postgres]
 *
 * (BENCH_LEADS=100000, BENCH_ROUNDS=7, BENCH_REQUESTS=300 requests of each operation a round by
 * default.) The compiled `leadline serve` (run `npm run build` first) of this tree — and with
 * BENCH_BEFORE, of that tree too (built, e.g. the commit before issue 39 in a worktree) — runs
 * pinned to CPU 0, each on a store of its own, both loaded by their own `leadline import` from one
 * seed file (2 teams × 20 members, src/demo/seed.ts) and analyzed on PostgreSQL; a key of member 1
 * (a team admin, --legacy-v1). One client, sequential requests (keep-alive), every round runs
 * each operation of each server in turn, request by request (the order rotated), so noise falls
 * on all alike. Per round: p50 and p99 of each; PATCH p50 ÷ POST p50, and with BENCH_BEFORE this
 * tree's p50 ÷ the before tree's; the medians of the rounds. An operation a tree does not have
 * (PATCH before issue 39) is left out for it.
 *
 * Prints one JSON line. The stores are made in a temporary directory / schemas and removed after.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { seedRecords } from '../src/demo/seed.js';
import { BIN, freePort, machine, median, SERVER_ENV, startPinned, stop, type Target } from './lib.js';

const engine = process.argv[2] ?? 'sqlite';
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const BEFORE = process.env.BENCH_BEFORE;
const PG_URL = process.env.LEADLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const dir = mkdtempSync(join(tmpdir(), 'leadline-writes-'));
const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
const schemas: string[] = [];

interface Answer {
  status: number;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

interface Server {
  name: string;
  target: Target;
  auth: Record<string, string>;
  leadIds: string[];
  feedCursor: string;
  hasPatch: boolean;
}

/** A store loaded by `tree`'s own CLI from `file`, its key, and its server pinned to CPU 0. */
async function start(name: string, tree: string, file: string): Promise<Server> {
  const bin = tree === '.' ? BIN : resolve(tree, 'bin/leadline.js');
  let where: string[];
  if (engine === 'sqlite') where = ['--db', join(dir, `${name}.db`)];
  else {
    const schema = `writes_${process.pid}_${name}`;
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    schemas.push(schema);
    where = ['--database-url', `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}search_path=${schema}`];
  }
  const cli = (...args: string[]) =>
    JSON.parse(execFileSync(process.execPath, [bin, ...where, '--json', ...args], { encoding: 'utf8' }));
  cli('import', file);
  // A store in service has its statistics (autovacuum), as bench/lead-reads.ts.
  if (engine === 'postgres') await admin.unsafe(`ANALYZE ${schemas.at(-1)}.leads, ${schemas.at(-1)}.members`);
  const key = cli('keys', 'create', '--member', '1', '--legacy-v1').key as string;
  const port = await freePort();
  const target = await startPinned(
    name,
    0,
    [bin, ...where, 'serve', '--port', String(port)],
    SERVER_ENV,
    `http://127.0.0.1:${port}/healthz`,
  );
  try {
    return await prepared(name, target, { authorization: `Bearer ${key}` });
  } catch (e) {
    await stop(target);
    throw e;
  }
}

async function prepared(name: string, target: Target, auth: Record<string, string>): Promise<Server> {
  // The team's feed from its start: lead ids to patch, and the cursor a quarter in.
  const leadIds: string[] = [];
  let cursor: string | null = null;
  let feedCursor = '';
  while (leadIds.length < LEADS / 4) {
    const q: string = cursor === null ? '' : `&cursor=${cursor}`;
    const a = await send(`${target.url}/api/pub/v2/leads/changes?limit=1000${q}`, 'GET', auth);
    if (a.status !== 200) throw new Error(`${name}: feed ${a.status} ${a.body}`);
    const page = JSON.parse(a.body).data as { leads: { leadId: string }[]; nextCursor: string | null };
    for (const l of page.leads) leadIds.push(l.leadId);
    feedCursor = page.nextCursor ?? feedCursor;
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  const probe = await send(
    `${target.url}/api/pub/v2/leads/${leadIds[0]}`,
    'PATCH',
    {
      ...auth,
      'content-type': 'application/merge-patch+json',
    },
    '{"systemFields":{"jobTitle":"probe"}}',
  );
  return { name, target, auth, leadIds, feedCursor, hasPatch: probe.status === 200 };
}

type Op = (s: Server, i: number) => Promise<Answer>;

let written = 0;
const OPS: Record<string, Op> = {
  post: (s) => {
    written++;
    return send(
      `${s.target.url}/api/pub/v2/leads`,
      'POST',
      { ...s.auth, 'content-type': 'application/json' },
      JSON.stringify({
        leadSource: 'BUSINESS_CARD_SCAN',
        systemFields: {
          firstName: 'Bench',
          lastName: `Writer ${written}`,
          email: `bench.${written}@example.test`,
          companyName: 'Acme Bench',
          jobTitle: 'Head of Sales',
        },
      }),
    );
  },
  patch: (s, i) => {
    written++;
    // Each lead patched once a run at most (unless REQUESTS × ROUNDS exceeds LEADS/4 + warm-up).
    return send(
      `${s.target.url}/api/pub/v2/leads/${s.leadIds[(i * 7919) % s.leadIds.length]}`,
      'PATCH',
      { ...s.auth, 'content-type': 'application/merge-patch+json' },
      JSON.stringify({ systemFields: { jobTitle: `Bench title ${written}` } }),
    );
  },
  getLastLead: (s) => send(`${s.target.url}/api/pub/leads/getLastLead`, 'GET', s.auth),
  feed100: (s) =>
    send(`${s.target.url}/api/pub/v2/leads/changes?limit=100&cursor=${s.feedCursor}`, 'GET', s.auth),
};
const EXPECT: Record<string, number> = { post: 201, patch: 200, getLastLead: 200, feed100: 200 };

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

async function main(): Promise<void> {
  const file = join(dir, 'leads.ndjson');
  const out = createWriteStream(file);
  for (const line of seedRecords({ teams: 2, membersPerTeam: 20, leads: LEADS, seed: 'writes' })) {
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  const servers: Server[] = [];
  try {
    servers.push(await start('after', '.', file));
    if (BEFORE !== undefined) servers.push(await start('before', BEFORE, file));
    const jobs = servers.flatMap((s) =>
      Object.keys(OPS)
        .filter((op) => op !== 'patch' || s.hasPatch)
        .map((op) => ({ s, op })),
    );
    let n = 0;
    const run = async (requests: number, ms?: Map<string, number[]>) => {
      for (let i = 0; i < requests; i++, n++) {
        for (let j = 0; j < jobs.length; j++) {
          const { s, op } = jobs[(i + j) % jobs.length]!;
          const t = performance.now();
          const a = await OPS[op]!(s, n);
          const took = performance.now() - t;
          if (a.status !== EXPECT[op])
            throw new Error(`${s.name} ${op}: ${a.status} ${a.body.slice(0, 300)}`);
          const k = `${s.name}.${op}`;
          ms?.set(k, [...(ms.get(k) ?? []), took]);
        }
      }
    };
    await run(Math.max(50, REQUESTS / 2)); // warm-up
    const rounds: Record<string, { p50: number; p99: number }>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const ms = new Map<string, number[]>();
      await run(REQUESTS, ms);
      rounds.push(
        Object.fromEntries(
          [...ms].map(([k, xs]) => [k, { p50: r3(quantile(xs, 0.5)), p99: r3(quantile(xs, 0.99)) }]),
        ),
      );
    }
    const ratio = (a: string, b: string) => {
      if (rounds[0]![a] === undefined || rounds[0]![b] === undefined) return undefined;
      const each = rounds.map((x) => Math.round((x[a]!.p50 / x[b]!.p50) * 100) / 100);
      return { median: median(each), rounds: each };
    };
    const keys = Object.keys(rounds[0]!);
    const result = {
      engine,
      leads: LEADS,
      rounds: ROUNDS,
      requestsPerRound: REQUESTS,
      machine: machine(),
      ms: Object.fromEntries(
        keys.map((k) => [
          k,
          {
            p50: r3(median(rounds.map((x) => x[k]!.p50))),
            p99: r3(median(rounds.map((x) => x[k]!.p99))),
            p50Rounds: rounds.map((x) => x[k]!.p50),
          },
        ]),
      ),
      ratios: {
        'after.patch/post': ratio('after.patch', 'after.post'),
        ...(BEFORE === undefined
          ? {}
          : Object.fromEntries(
              Object.keys(OPS).map((op) => [`${op} after/before`, ratio(`after.${op}`, `before.${op}`)]),
            )),
      },
    };
    console.log(JSON.stringify(result));
  } finally {
    for (const s of servers) await stop(s.target);
  }
}

try {
  await main();
} finally {
  agent.destroy();
  for (const schema of schemas) await admin.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
