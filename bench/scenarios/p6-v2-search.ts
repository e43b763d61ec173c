/**
 * P6: the v2 search's first page (100 leads of the team) within 2× getLastLead's median latency
 * on one connection, on the largest store; a page of one lead reported beside it.
 */

import { type Engine, LARGEST } from '../harness/config.js';
import { engineName, f3, med, type Row } from '../harness/figures.js';
import { type Job, loadJob } from '../harness/jobs.js';
import type { Served } from '../harness/servers.js';
import type { Req } from '../load.js';
import { largestLabel } from './p2-last-lead-by-size.js';

const SEARCH_BODY = JSON.stringify({ filters: { teamId: 1 } });
const search = (s: Served, body = SEARCH_BODY): Req => ({
  url: `${s.server.url}/api/pub/v2/leads/search`,
  auth: `Bearer ${s.key}`,
  method: 'POST',
  body,
});

export const searchJobs = (s: Served): Job[] => [
  loadJob(`search.c1.${s.engine}.${s.size}`, search(s), 1),
  loadJob(
    `search1.c1.${s.engine}.${s.size}`,
    search(s, JSON.stringify({ filters: { teamId: 1 }, limit: 1 })),
    1,
  ),
];

export function rows(engine: Engine): Row[] {
  const tb = `${engine}.${LARGEST}`;
  return [
    {
      id: 'P6',
      what: `v2 search first page (100 leads) p50 ÷ getLastLead p50 at ${largestLabel()}, ${engineName(engine)}`,
      measured: med(`search.c1.${tb}.p50`) / med(`last.c1.${tb}.p50`),
      target: 2,
      sense: 'le',
      detail: `${f3(med(`search.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${tb}.p50`))} ms`,
    },
    {
      id: 'P6 (page of 1, no target)',
      what: `v2 search with limit 1 p50 ÷ getLastLead p50 at ${largestLabel()}, ${engineName(engine)}`,
      measured: med(`search1.c1.${tb}.p50`) / med(`last.c1.${tb}.p50`),
      target: Number.NaN,
      sense: 'le',
      detail: `${f3(med(`search1.c1.${tb}.p50`))} vs ${f3(med(`last.c1.${tb}.p50`))} ms`,
    },
  ];
}
