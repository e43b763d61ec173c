import { statSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { loadImportConfig } from '../config.js';
import { cannotRead } from '../import/import-error.js';
import { fileSource, importRecords } from '../io/import/run-import.js';
import { writeImportMetrics } from '../metrics/import-textfile.js';
import type { CommandContext } from './command-context.js';

/** A progress bar on stderr, only when stderr is a terminal (import-format.md: "progress on a terminal"). */
function progressBar(paths: string[]): { update(bytes: number): void; stop(): void } | null {
  if (!process.stderr.isTTY) return null;
  let total = 0;
  for (const p of paths) {
    if (p === '-') return null;
    try {
      total += statSync(p).size;
    } catch {
      return null; // the import itself reports the missing file
    }
  }
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'importing [{bar}] {percentage}% | {value}/{total} MB',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const mb = (b: number) => Math.round(b / 1e5) / 10;
  bar.start(mb(total), 0);
  return { update: (bytes) => bar.update(Math.min(mb(bytes), mb(total))), stop: () => bar.stop() };
}

/** `leadline import <file…>`: all files in one transaction; `-` reads standard input. */
export function registerImportCommand(program: Command, withContext: CommandContext): void {
  program
    .command('import')
    .description('load NDJSON records (teams, members, subteams, leads) atomically')
    .argument('<file...>', 'NDJSON files; - for standard input')
    .option('--metrics-file <path>', "write the import's figures for node_exporter's textfile collector")
    .action((files: string[], opts: { metricsFile?: string }) =>
      withContext(async ({ store, out }) => {
        const limits = { ...loadImportConfig(), now: Date.now };
        for (const f of files) {
          if (f !== '-') {
            try {
              statSync(f);
            } catch (err) {
              throw cannotRead(f, err);
            }
          }
        }
        const bar = out.json ? null : progressBar(files);
        let summary: Awaited<ReturnType<typeof importRecords>>;
        const t0 = performance.now();
        const record = async (ok: boolean, leads = 0, newLeads = 0) => {
          if (opts.metricsFile === undefined) return;
          const seconds = (performance.now() - t0) / 1000;
          await writeImportMetrics(opts.metricsFile, { ok, leads, newLeads, seconds, at: Date.now() });
        };
        try {
          summary = await importRecords(
            store,
            files.map((f) => fileSource(f)),
            { onProgress: (bytes) => bar?.update(bytes), limits },
          );
        } catch (err) {
          await record(false);
          throw err;
        } finally {
          bar?.stop();
        }
        await record(true, summary.leads, summary.newLeads);
        out.result(
          { files, ...summary },
          `imported ${summary.leads} leads (${summary.newLeads} new, ${summary.changed} changed${summary.suppressed > 0 ? `, ${summary.suppressed} skipped: e-mail suppressed` : ''}), ${summary.teams} teams, ${summary.members} members, ${summary.subteams} subteams`,
        );
      }),
    );
}
