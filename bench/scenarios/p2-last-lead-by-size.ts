/**
 * P2: getLastLead's median latency on one connection does not grow with the store: p50 on the
 * largest store (10M) against p50 on the smallest (10k). Its one-connection p50 is also the
 * denominator of P4 and P6.
 */
import { type Engine, LARGEST, SMALLEST } from '../harness/config.js';
import { engineName, f3, med, type Row, sizeName } from '../harness/figures.js';
import { type Job, loadJob } from '../harness/jobs.js';
import { type Served, v1 } from '../harness/servers.js';

export const lastLeadLatencyJob = (s: Served): Job =>
  loadJob(`last.c1.${s.engine}.${s.size}`, v1(s, 'getLastLead'), 1);

/** How the largest size is named in P2 and P6: 10M, or what ran instead. */
export const largestLabel = () => (LARGEST >= 10_000_000 ? '10M' : `${sizeName(LARGEST)} (10M not run)`);

export function rows(engine: Engine): Row[] {
  const tb = `${engine}.${LARGEST}`;
  const ts = `${engine}.${SMALLEST}`;
  return [
    {
      id: 'P2',
      what: `getLastLead p50 at ${largestLabel()} ÷ p50 at ${sizeName(SMALLEST)}, ${engineName(engine)}`,
      measured: med(`last.c1.${tb}.p50`) / med(`last.c1.${ts}.p50`),
      target: 1.2,
      sense: 'le',
      detail: `${f3(med(`last.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${ts}.p50`))} ms, 1 connection`,
    },
  ];
}
