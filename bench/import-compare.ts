/**
 * `leadline import` of one seed file by two builds of leadline (A and B), alternated, each run
 * into a fresh store: the wall time from the command's start to its exit and the CPU time it took
 * (all its threads) — and, for a PostgreSQL server on this machine, the CPU time the server took
 * meanwhile (all its processes: the backend, WAL writer, checkpointer, …). Each run, then the
 * medians. With `--raw`, P5's reference as well (bench/raw-load.ts: the driver's bulk load of
 * the rows B's first import left, in this process, one thread). For a change to the import,
 * side by side with the commit before it, built in a worktree:
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   (cd /tmp/before && npx tsc -p tsconfig.build.json)
 *   npm run build && node --import tsx bench/import-compare.ts /tmp/before . \
 *     [--database-url <url>] [--members 1000] [--leads 100000] [--rounds 5] [--raw]
 *
 * The file is `leadline seed`'s generator (one team, seed "bench") written as NDJSON. Without
 * `--database-url` the stores are SQLite files in a temporary folder; with it, schemas of that
 * database made for the run and dropped at its end. Linux only: CPU times come from /proc.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { seedRecords } from '../src/demo/seed.js';
import { median } from './lib.js';
import { dumpPostgres, dumpSqlite, loadPostgres, loadSqlite } from './raw-load.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'database-url': { type: 'string' },
    members: { type: 'string', default: '1000' },
    leads: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    raw: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 2) {
  console.error(
    'usage: bench/import-compare.ts <checkout A> <checkout B> [--database-url <url>] [--members n] [--leads n] [--rounds n] [--raw]',
  );
  process.exit(2);
}
const checkouts = positionals.map((p) => resolve(p));
const url = values['database-url'];
const dir = mkdtempSync(join(tmpdir(), 'leadline-import-compare-'));
const file = join(dir, 'import.ndjson');
const admin = url === undefined ? null : postgres(url, { max: 1, onnotice: () => {} });
/** What each checkout is called in the output, in the order given. */
const names = ['A', 'B'];

async function writeFile(): Promise<void> {
  const out = createWriteStream(file);
  const records = seedRecords({
    teams: 1,
    membersPerTeam: Number(values.members),
    leads: Number(values.leads),
    seed: 'bench',
  });
  for (const line of records) {
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

/** USER_HZ, the unit of the CPU times in /proc on Linux. */
const TICKS = 100;

/** The fields of /proc/<pid>/stat after the command's name ([state, ppid, …]); null when it is gone. */
function procStat(pid: number | 'self'): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime, stime, cutime, cstime (the stat file's fields 14–17), in seconds. */
const cpuTimes = (fields: string[]) => fields.slice(11, 15).map((t) => Number(t) / TICKS);

/** CPU seconds of this process's children that have exited and been waited for. */
function childrenCpu(): number {
  const [, , cutime, cstime] = cpuTimes(procStat('self')!);
  return cutime! + cstime!;
}

/** CPU seconds of this process so far. */
function ownCpu(): number {
  const [utime, stime] = cpuTimes(procStat('self')!);
  return utime! + stime!;
}

/** The PostgreSQL postmaster's pid when it runs on this machine: the parent of our backend. */
async function postmaster(): Promise<number | null> {
  if (admin === null) return null;
  const [row] = await admin<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  const fields = procStat(row!.pid);
  return fields === null ? null : Number(fields[1]);
}

/** CPU seconds of the server so far: the postmaster's own, its exited children's, its live children's. */
function serverCpu(pm: number): number {
  const [utime, stime, cutime, cstime] = cpuTimes(procStat(pm)!);
  let total = utime! + stime! + cutime! + cstime!;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(Number(entry));
    if (fields === null || Number(fields[1]) !== pm) continue;
    const [u, s] = cpuTimes(fields);
    total += u! + s!;
  }
  return total;
}

/**
 * serverCpu once the connection just closed has left: its backend exits after the client, and
 * read while the postmaster reaps it, its time would be in neither sum.
 */
async function serverCpuAfter(pm: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 500));
  return serverCpu(pm);
}

const schemaOf = (name: string) => `import_compare_${process.pid}_${name}`;
const urlOf = (name: string) =>
  `${url}${url!.includes('?') ? '&' : '?'}search_path=${schemaOf(name)}%2Cpublic`;
const fileOf = (name: string) => join(dir, `${name}.db`);

/** A fresh store called `name`, migrated by `checkout`: its `--db` or `--database-url` arguments. */
async function freshStore(checkout: string, name: string): Promise<string[]> {
  let store: string[];
  if (admin === null) {
    for (const s of ['', '-wal', '-shm']) rmSync(`${fileOf(name)}${s}`, { force: true });
    store = ['--db', fileOf(name)];
  } else {
    await admin.unsafe(`DROP SCHEMA IF EXISTS ${schemaOf(name)} CASCADE; CREATE SCHEMA ${schemaOf(name)}`);
    store = ['--database-url', urlOf(name)];
  }
  leadline(checkout, [...store, 'migrate']);
  return store;
}

function leadline(checkout: string, args: string[]): void {
  const r = spawnSync(process.execPath, [join(checkout, 'bin', 'leadline.js'), ...args], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${checkout}: leadline ${args.join(' ')} failed: ${r.stderr}`);
}

interface Run {
  seconds: number;
  cpu: number;
  /** null: no PostgreSQL server on this machine to read. */
  server: number | null;
}

const f2 = (x: number) => x.toFixed(2);
const show = (r: Run) =>
  `${f2(r.seconds)} s, CPU ${f2(r.cpu)} s${r.server === null ? '' : `, server CPU ${f2(r.server)} s`}`;
const medians = (runs: Run[]): Run => ({
  seconds: median(runs.map((r) => r.seconds)),
  cpu: median(runs.map((r) => r.cpu)),
  server: runs.some((r) => r.server === null) ? null : median(runs.map((r) => r.server!)),
});

async function importRun(i: number, pm: number | null): Promise<Run> {
  const store = await freshStore(checkouts[i]!, names[i]!);
  const server0 = pm === null ? 0 : serverCpu(pm);
  const cpu0 = childrenCpu();
  const t0 = performance.now();
  leadline(checkouts[i]!, [...store, 'import', '--json', file]);
  const seconds = (performance.now() - t0) / 1000;
  return {
    seconds,
    cpu: childrenCpu() - cpu0,
    server: pm === null ? null : (await serverCpuAfter(pm)) - server0,
  };
}

/** The raw load's dump, made once from the store B's first import left. */
let dumped: { table: string; columns: string[] }[] | true | null = null;

async function rawRun(pm: number | null): Promise<Run> {
  if (dumped === null) {
    if (admin === null) dumped = dumpSqlite(fileOf('B'), dir);
    else {
      dumpPostgres(url!, schemaOf('B'), dir);
      dumped = true;
    }
  }
  await freshStore(checkouts[1]!, 'raw');
  const server0 = pm === null ? 0 : serverCpu(pm);
  const cpu0 = ownCpu();
  const seconds =
    dumped === true ? await loadPostgres(urlOf('raw'), dir) : loadSqlite(fileOf('raw'), dir, dumped);
  const cpu = ownCpu() - cpu0;
  return { seconds, cpu, server: pm === null ? null : (await serverCpuAfter(pm)) - server0 };
}

try {
  await writeFile();
  const pm = await postmaster();
  const runs: Run[][] = [[], [], []];
  for (let round = 0; round < Number(values.rounds); round++) {
    // Alternated, and which goes first swaps each round.
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      runs[i]!.push(await importRun(i, pm));
      console.log(`round ${round + 1} ${names[i]} (${positionals[i]}): ${show(runs[i]!.at(-1)!)}`);
    }
    if (values.raw) {
      runs[2]!.push(await rawRun(pm));
      console.log(`round ${round + 1} raw load: ${show(runs[2]!.at(-1)!)}`);
    }
  }
  const [a, b] = [medians(runs[0]!), medians(runs[1]!)];
  console.log(
    `${values.leads} leads, ${values.members} members, ${url === undefined ? 'SQLite' : 'PostgreSQL'}, ` +
      `medians of ${values.rounds}:\n  A ${show(a)}\n  B ${show(b)}\n  B ÷ A ${f2(b.seconds / a.seconds)}`,
  );
  if (values.raw) {
    const raw = medians(runs[2]!);
    console.log(`  raw load ${show(raw)}\n  raw load ÷ B ${f2(raw.seconds / b.seconds)} (P5's ratio)`);
  }
} finally {
  if (admin !== null) {
    for (const name of ['A', 'B', 'raw'])
      await admin.unsafe(`DROP SCHEMA IF EXISTS ${schemaOf(name)} CASCADE`);
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
}
