/**
 * What the import's worker thread costs (src/io/import/feed.ts; docs/import-format.md says
 * why a small input is prepared without one): how long the compiled worker takes to say it is
 * ready, the memory it adds to the process, and the peak RSS of one import of the same file
 * prepared in a worker and in the importing thread (alternated, each in a process of its own).
 *
 *   npm run build && node --import tsx bench/import-worker-cost.ts [leads=100000] [rounds=5]
 *
 * Runs the compiled code (dist/), as `leadline import` does; SQLite stores in a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { writeSeed } from './harness/seed-file.js';
import { median } from './lib.js';

const LEADS = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const DIST = fileURLToPath(new URL('../dist/io/import/', import.meta.url));
const WORKER = join(DIST, 'worker.js');
if (!existsSync(WORKER)) {
  console.error(`no ${WORKER}: run \`npm run build\` first`);
  process.exit(2);
}
const MIB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MIB).toFixed(1);

/** Milliseconds until a fresh worker posts `{ ready: true }`, and the RSS it added by then. */
async function startOnce(): Promise<{ ms: number; rssMiB: number }> {
  const before = process.memoryUsage.rss();
  const t0 = performance.now();
  const worker = new Worker(WORKER, {
    workerData: {
      captureToleranceMs: 86_400_000,
      importMaxRecordBytes: MIB,
      now: Date.now(),
      paddedWords: true,
    },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  const ms = performance.now() - t0;
  const rssMiB = (process.memoryUsage.rss() - before) / MIB;
  await worker.terminate();
  return { ms, rssMiB };
}

/** One import of `file` into a fresh store, in a process of its own: seconds and peak RSS (MiB). */
function importOnce(file: string, db: string, worker: boolean): { seconds: number; peakMiB: number } {
  const script = `
    const { importRecords, fileSource } = await import(${JSON.stringify(join(DIST, 'run-import.js'))});
    const { SqliteStore } = await import(${JSON.stringify(join(DIST, '..', '..', 'storage', 'sqlite', 'store.js'))});
    const store = SqliteStore.open(${JSON.stringify(db)});
    await store.migrate();
    const t0 = performance.now();
    const summary = await importRecords(store, [fileSource(${JSON.stringify(file)})], { worker: ${worker} });
    const seconds = (performance.now() - t0) / 1000;
    await store.close();
    console.log(JSON.stringify({ seconds, peakMiB: process.resourceUsage().maxRSS / 1024, leads: summary.leads }));
  `;
  const child = join(dir, 'import-once.mjs');
  writeFileSync(child, script);
  const run = spawnSync(process.execPath, [child], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`import failed (${run.status}): ${run.stderr}`);
  const out = JSON.parse(run.stdout) as { seconds: number; peakMiB: number; leads: number };
  if (out.leads !== LEADS) throw new Error(`imported ${out.leads} leads, expected ${LEADS}`);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'leadline-worker-cost-'));
try {
  // Warm the file cache once (the first worker of a session also reads its modules from disk).
  await startOnce();
  const starts: { ms: number; rssMiB: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) starts.push(await startOnce());
  console.log(
    `worker ready: median ${median(starts.map((s) => s.ms)).toFixed(0)} ms (${starts.map((s) => s.ms.toFixed(0)).join(', ')}); ` +
      `RSS added: median ${median(starts.map((s) => s.rssMiB)).toFixed(1)} MiB (${starts.map((s) => s.rssMiB.toFixed(1)).join(', ')})`,
  );

  const file = join(dir, 'leads.ndjson');
  await writeSeed(file, LEADS);
  console.log(`file: ${LEADS} leads, ${mib(statSync(file).size)} MiB`);

  const results: Record<'worker' | 'thread', { seconds: number; peakMiB: number }[]> = {
    worker: [],
    thread: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order: ('worker' | 'thread')[] = round % 2 === 0 ? ['worker', 'thread'] : ['thread', 'worker'];
    for (const mode of order) {
      const db = join(dir, `${mode}-${round}.db`);
      results[mode].push(importOnce(file, db, mode === 'worker'));
      rmSync(db, { force: true });
      rmSync(`${db}-wal`, { force: true });
      rmSync(`${db}-shm`, { force: true });
    }
  }
  for (const mode of ['worker', 'thread'] as const) {
    const r = results[mode];
    console.log(
      `import, ${mode === 'worker' ? 'prepared in a worker ' : 'prepared in one thread'}: ` +
        `median ${median(r.map((x) => x.seconds)).toFixed(2)} s, peak RSS median ${median(r.map((x) => x.peakMiB)).toFixed(0)} MiB ` +
        `(${r.map((x) => `${x.seconds.toFixed(2)} s/${x.peakMiB.toFixed(0)} MiB`).join(', ')})`,
    );
  }
  const peak = (mode: 'worker' | 'thread') => median(results[mode].map((x) => x.peakMiB));
  const time = (mode: 'worker' | 'thread') => median(results[mode].map((x) => x.seconds));
  console.log(
    `worker ÷ one thread: time ${(time('worker') / time('thread')).toFixed(2)}, peak RSS +${(peak('worker') - peak('thread')).toFixed(0)} MiB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
