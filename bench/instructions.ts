/**
 * Instructions per getLastLead, counted by valgrind's callgrind: a figure for a noisy shared
 * machine. Req/s move with whatever else runs on the two cores; the instructions a server's
 * main thread executes per request do not (to within a few per cent: JIT and GC timing).
 *
 * Each target — leadline (the compiled `leadline serve`, bench settings), issue 16's ideal data
 * path on bare node:http (bench/reference-ideal.ts) and on a minimal Fastify app
 * (bench/reference-ideal-fastify.ts) — runs under callgrind on the same store. After a warm-up
 * the counters are zeroed, N requests are sent (4 at a time, kept-alive), and the main thread's
 * count is read; three times. Prints each target's median per request and the ratios, which
 * are the noise-free analogue of P1's (ideal ÷ leadline: what share of leadline's work the ideal
 * does). Only user-space instructions of the server's main thread count: the kernel's share
 * (socket reads and writes, the same for every target) and SQLite's I/O waits do not.
 *
 *   npm run build && node --import tsx bench/instructions.ts --db <file> [requests=10000]
 *   node --import tsx bench/instructions.ts --database-url <url> [requests]
 *
 * Needs member 1 in the store (a legacy-v1 key for it is created) and valgrind (Debian's
 * package). BENCH_TARGETS=leadline,ideal narrows; INSTRUCTIONS_WARMUP sets the warm-up (15000);
 * INSTRUCTIONS_START_MS how long a server may take to start under valgrind (300000).
 * leadline's webhook delivery loop polls its outbox every 60 s here (LEADLINE_WEBHOOK_POLL_MS,
 * 100 ms by default; INSTRUCTIONS_POLL_MS sets it): under valgrind a request takes ~50× its
 * wall time, so a timer's work weighs ~50× more per request than at full speed, and with it how
 * loaded the host was — an idle poll every 100 ms read 25–36k instructions a request
 * (bench/RESULTS.md, "P1 in instructions, issue 43"), at full speed well under 1 %.
 * INSTRUCTIONS_OP=createLead counts a v2 create (POST /api/pub/v2/leads, a small card-scan
 * lead for member 1, every answer 201) instead: leadline only, the ideal targets have no
 * such route. Each create stores a lead: use a copy of the store.
 * A run takes a few minutes: each server starts in ~1 min under valgrind.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, freePort, median, SERVER_ENV } from './lib.js';
import { memberOneKey } from './member-key.js';

const [flag, where, requestsArg = '10000'] = process.argv.slice(2);
if ((flag !== '--db' && flag !== '--database-url') || where === undefined) {
  console.error('usage: bench/instructions.ts --db <file> | --database-url <url> [requests]');
  process.exit(2);
}
const REQUESTS = Number(requestsArg);
const WARMUP = Number(process.env.INSTRUCTIONS_WARMUP ?? 15_000);
const ROUNDS = 3;
/** How long a server may take to start under valgrind (a loaded host needs more than the 5 min default). */
const START_TIMEOUT_MS = Number(process.env.INSTRUCTIONS_START_MS ?? 300_000);
const engine = flag === '--db' ? 'sqlite' : 'postgres';
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const key = await memberOneKey(flag, where);

/** How each target is started on `port`: node's arguments and environment. */
const TARGETS: Record<string, (port: number) => { args: string[]; env: Record<string, string> }> = {
  leadline: (port) => ({
    args: [BIN, flag, where, 'serve', '--port', String(port)],
    env: { ...SERVER_ENV, LEADLINE_WEBHOOK_POLL_MS: process.env.INSTRUCTIONS_POLL_MS ?? '60000' },
  }),
  ideal: (port) => ({
    args: ['--import', 'tsx', here('./reference-ideal.ts'), String(port), engine, where],
    env: {},
  }),
  'ideal-fastify': (port) => ({
    args: ['--import', 'tsx', here('./reference-ideal-fastify.ts'), String(port), engine, where],
    env: {},
  }),
};
const OP = process.env.INSTRUCTIONS_OP ?? 'getLastLead';
/** The request each operation sends, and the status every answer must have. */
const OPERATIONS: Record<string, { path: string; init: RequestInit; status: number }> = {
  getLastLead: {
    path: '/api/pub/leads/getLastLead',
    init: { headers: { authorization: `Bearer ${key}` } },
    status: 200,
  },
  createLead: {
    path: '/api/pub/v2/leads',
    init: {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        leadSource: 'BUSINESS_CARD_SCAN',
        captureDatetime: '2024-07-01T12:10:00Z',
        systemFields: { fullName: 'Ada Lovelace', email: 'ada@example.com', companyName: 'Analytical' },
      }),
    },
    status: 201,
  },
};
if (OPERATIONS[OP] === undefined) throw new Error(`unknown INSTRUCTIONS_OP ${OP}`);
const operation = OPERATIONS[OP];
const chosen = (
  process.env.BENCH_TARGETS ?? (OP === 'getLastLead' ? 'ideal,ideal-fastify,leadline' : 'leadline')
).split(',');
for (const t of chosen) if (TARGETS[t] === undefined) throw new Error(`unknown target ${t}`);

/** Sends `n` requests of the operation, 4 at a time; every answer must have its status. */
async function drive(base: string, n: number): Promise<void> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const r = await fetch(`${base}${operation.path}`, operation.init);
      await r.arrayBuffer();
      if (r.status !== operation.status) throw new Error(`${OP} answered ${r.status}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

async function until(url: string, child: ChildProcess): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > START_TIMEOUT_MS) throw new Error('the server did not start under valgrind');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Instructions per request of `target`'s main thread, one figure per round. */
async function measure(target: string): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), `leadline-callgrind-${target}-`));
  const port = await freePort();
  const { args, env } = TARGETS[target]!(port);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'cg.out')}`,
      process.execPath,
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const base = `http://127.0.0.1:${port}`;
  const perRequest: number[] = [];
  try {
    await until(`${base}/healthz`, child);
    await drive(base, WARMUP);
    for (let round = 1; round <= ROUNDS; round++) {
      execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
      await drive(base, REQUESTS);
      execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      // One file per dump and thread: cg.out.<dump>-<thread>; thread 01 is the main thread.
      const file = join(dir, `cg.out.${round}-01`);
      const summary = /^summary: (\d+)$/m.exec(readFileSync(file, 'utf8'));
      if (summary === null) throw new Error(`no summary in ${file}`);
      perRequest.push(Number(summary[1]) / REQUESTS);
    }
  } catch (err) {
    throw new Error(`${target}: ${(err as Error).message}\n${stderr}`);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    if (process.env.INSTRUCTIONS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    else console.log(`${target}: callgrind files kept in ${dir} (${readdirSync(dir).length})`);
  }
  return perRequest;
}

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
const results = new Map<string, number>();
for (const target of chosen) {
  const rounds = await measure(target);
  results.set(target, median(rounds));
  console.log(`${target}: ${k(median(rounds))} instructions per ${OP} (rounds ${rounds.map(k).join(', ')})`);
}
const ratio = (a: string, b: string) => {
  const x = results.get(a);
  const y = results.get(b);
  if (x !== undefined && y !== undefined) console.log(`${a} ÷ ${b}: ${(x / y).toFixed(2)}`);
};
console.log(`${engine}, ${REQUESTS} requests a round, ${WARMUP} to warm up; main thread, user space:`);
ratio('ideal', 'leadline');
ratio('ideal', 'ideal-fastify');
ratio('ideal-fastify', 'leadline');
