/**
 * P5: leadline's import of BENCH_IMPORT_LEADS (100k) leads into a fresh store, against the raw
 * driver's bulk load of the same rows (bench/raw-load.ts), alternated engine by engine.
 *
 * Like for like (issue 43): both are whole processes timed from their start to their exit. The
 * import is the shipped command, `leadline import` (dist/), on both cores (issue 16: one
 * prepares records in a worker while the other writes; the bench itself is pinned to CPU 1, and
 * a child inherits that). The raw load is `node bench/raw-load-process.mjs` (plain JavaScript:
 * node starts, opens the store with the driver, loads, exits), one thread by nature; the seconds
 * of its load alone, which P5 compared before, are kept beside (`rawload-inner`). On PostgreSQL
 * each side starts after a `CHECKPOINT` (stores.ts `checkpoint`): without it the server's
 * checkpoints, one every two or three loads here, fell inside whichever side crossed the line.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES, type Engine, IMPORT_LEADS, log, PG_BASE, ROUNDS } from '../harness/config.js';
import { add, engineName, f2, med, type Row, sizeName } from '../harness/figures.js';
import { checkpoint, dir, freshStore, schemaName, writeSeed } from '../harness/stores.js';
import { BIN } from '../lib.js';
import { dumpPostgres, dumpSqlite } from '../raw-load.js';

const RAW_LOAD = fileURLToPath(new URL('../raw-load-process.mjs', import.meta.url));

export async function importScenario(): Promise<void> {
  const file = join(dir, `import-${IMPORT_LEADS}.ndjson`);
  await writeSeed(file, IMPORT_LEADS);
  const dumped: Partial<Record<Engine, { table: string; columns: string[] }[] | true>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const engine of round % 2 === 0 ? ENGINES : [...ENGINES].reverse()) {
      log(`P5 ${engine}: fresh store`);
      const imp = await freshStore(engine, 'import');
      await imp.store.close();
      if (engine === 'postgres') await checkpoint();
      log(`P5 ${engine}: importing`);
      const imported = await commandImport(engine, imp.where, file);
      add(`import.${engine}`, imported);
      if (dumped[engine] === undefined) {
        if (engine === 'sqlite') dumped[engine] = dumpSqlite(imp.where, dir);
        else {
          dumpPostgres(PG_BASE, schemaName('import'), dir);
          dumped[engine] = true;
        }
      }
      log(`P5 ${engine}: raw load`);
      const raw = await freshStore(engine, 'raw');
      await raw.store.close();
      if (engine === 'postgres') await checkpoint();
      const d = dumped[engine]!;
      const run = await rawLoadProcess(engine, raw.where, d === true ? null : d);
      add(`rawload.${engine}`, run.whole);
      add(`rawload-inner.${engine}`, run.inner);
      log(
        `P5 round ${round + 1} ${engine}: import ${f2(imported)} s, raw ${f2(run.whole)} s (${f2(run.whole / imported)})`,
      );
    }
  }
}

/** Seconds `leadline import` takes, from start to exit, on CPUs 0 and 1. */
async function commandImport(engine: Engine, where: string, file: string): Promise<number> {
  const store = engine === 'sqlite' ? ['--db', where] : ['--database-url', where];
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', '0,1', process.execPath, BIN, ...store, 'import', '--json', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`leadline import exited with ${code}`);
  return (performance.now() - t0) / 1000;
}

/**
 * The raw load as a process of its own, on CPU 1 (as the bench): seconds from its start to its
 * exit (`whole`), and those it printed for the load alone (`inner`).
 */
async function rawLoadProcess(
  engine: Engine,
  where: string,
  tables: { table: string; columns: string[] }[] | null,
): Promise<{ whole: number; inner: number }> {
  const args = [RAW_LOAD, engine, where, dir, ...(tables === null ? [] : [JSON.stringify(tables)])];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  const whole = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`raw-load-process.mjs exited with ${code}`);
  return { whole, inner: Number(out.trim()) };
}

export const rows = (engine: Engine): Row[] => [
  {
    id: 'P5',
    what: `import rate ÷ raw driver bulk load, ${sizeName(IMPORT_LEADS)} leads, ${engineName(engine)}`,
    measured: med(`rawload.${engine}`) / med(`import.${engine}`),
    target: 0.8,
    sense: 'ge',
    detail: `${f2(med(`import.${engine}`))} s (\`leadline import\`, 2 cores) vs ${f2(med(`rawload.${engine}`))} s (${engine === 'sqlite' ? 'prepared INSERTs' : 'COPY FROM STDIN'}, one transaction, 1 core; both whole processes, the raw load's own ${f2(med(`rawload-inner.${engine}`))} s)`,
  },
];
