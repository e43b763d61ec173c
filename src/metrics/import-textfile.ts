import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Gauge, Registry } from 'prom-client';

/**
 * `leadline import --metrics-file <path>`: an import is a short-lived command, not a process
 * Prometheus can scrape, so it leaves its figures in a file for node_exporter's textfile
 * collector (docs/operations.md#imports). Written whole to `<path>.tmp` then renamed over
 * `<path>`, so the collector never reads half a file; a failed import keeps the time of the last
 * successful one from the file it replaces.
 */
export interface ImportOutcome {
  ok: boolean;
  /** Leads in the import's records, and those of them that were not stored before (success only). */
  leads: number;
  newLeads: number;
  seconds: number;
  /** When the import ended, ms since the epoch. */
  at: number;
}

const LAST_SUCCESS = 'leadline_import_last_success_timestamp_seconds';

export async function writeImportMetrics(path: string, outcome: ImportOutcome): Promise<void> {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  gauge('leadline_import_last_run_timestamp_seconds', 'When the last import ended, successful or not.').set(
    outcome.at / 1000,
  );
  gauge(
    'leadline_import_last_failed',
    '1 when the last import failed (nothing of it was stored), else 0.',
  ).set(outcome.ok ? 0 : 1);
  gauge('leadline_import_last_duration_seconds', 'How long the last import took.').set(outcome.seconds);
  const success = outcome.ok ? outcome.at / 1000 : previousSuccess(path);
  if (success !== null) gauge(LAST_SUCCESS, 'When the last successful import ended.').set(success);
  if (outcome.ok) {
    const leads = gauge(
      'leadline_import_last_leads',
      'Leads in the last successful import: all, and new ones.',
      ['kind'],
    );
    leads.set({ kind: 'all' }, outcome.leads);
    leads.set({ kind: 'new' }, outcome.newLeads);
  }
  writeFileSync(`${path}.tmp`, await registry.metrics());
  renameSync(`${path}.tmp`, path);
}

function previousSuccess(path: string): number | null {
  try {
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${LAST_SUCCESS} `));
    return line === undefined ? null : Number(line.split(' ')[1]);
  } catch {
    return null;
  }
}
