/**
 * P6, restated like for like (issue 16): the v2 search's first page (100 leads of the team) p50
 * on one connection, on the largest store, within 2× the ideal reference that reads the same
 * rows with the same query and writes the same v2 JSON through node:http (bench/ideal.ts). Lines
 * without a target: the same work on Fastify, the former ratio to getLastLead's p50 (issue 6),
 * and a page of one lead.
 */

import { ENGINES, type Engine, LARGEST } from '../harness/config.js';
import { engineName, f2, f3, med, type Row, samples } from '../harness/figures.js';
import { idealOf } from '../harness/ideals.js';
import { type Job, loadJob } from '../harness/jobs.js';
import type { Served } from '../harness/servers.js';
import type { Req } from '../load.js';
import { PRIME } from './p1-last-lead-throughput.js';
import { largestLabel } from './p2-last-lead-by-size.js';

const SEARCH_BODY = JSON.stringify({ filters: { teamId: 1 } });
const searchAt = (origin: string, key: string, body = SEARCH_BODY): Req => ({
  url: `${origin}/api/pub/v2/leads/search`,
  auth: `Bearer ${key}`,
  method: 'POST',
  body,
});

export const searchJobs = (s: Served): Job[] => [
  loadJob(`search.c1.${s.engine}.${s.size}`, searchAt(s.server.url, s.key), 1),
  loadJob(
    `search1.c1.${s.engine}.${s.size}`,
    searchAt(s.server.url, s.key, JSON.stringify({ filters: { teamId: 1 }, limit: 1 })),
    1,
  ),
];

/** The ideal search page on node:http and on Fastify, on the largest store of `engine`. */
export function referenceJobs(engine: Engine): Job[] {
  const i = idealOf(engine, LARGEST);
  if (i === undefined) throw new Error(`no ideal reference on ${engine} ${LARGEST}`);
  return [
    loadJob(`ideal.search.c1.${engine}.${LARGEST}`, searchAt(i.http.url, i.key), 1, PRIME[engine]),
    loadJob(`fastify.search.c1.${engine}.${LARGEST}`, searchAt(i.fastify.url, i.key), 1, PRIME[engine]),
  ];
}

function p50s(id: string, what: string, a: string, b: string, target = Number.NaN): Row {
  return {
    id,
    what,
    measured: med(`${a}.p50`) / med(`${b}.p50`),
    target,
    sense: 'le',
    detail: `${f3(med(`${a}.p50`))} vs ${f3(med(`${b}.p50`))} ms, 1 connection`,
  };
}

export function rows(engine: Engine): Row[] {
  const tb = `${engine}.${LARGEST}`;
  const at = `${largestLabel()}, ${engineName(engine)}`;
  return [
    p50s(
      'P6',
      `v2 search first page (100 leads) p50 ÷ the ideal reference's (node:http, same query, same v2 JSON) at ${at}`,
      `search.c1.${tb}`,
      `ideal.search.c1.${tb}`,
      2,
    ),
    p50s(
      'P6 (Fastify, no target)',
      `the ideal search page on Fastify p50 ÷ on node:http: the framework's share, at ${at}`,
      `fastify.search.c1.${tb}`,
      `ideal.search.c1.${tb}`,
    ),
    p50s(
      'P6 (÷ getLastLead, no target)',
      `v2 search first page (100 leads) p50 ÷ getLastLead p50 (issue 6's yardstick) at ${at}`,
      `search.c1.${tb}`,
      `last.c1.${tb}`,
    ),
    p50s(
      'P6 (page of 1, no target)',
      `v2 search with limit 1 p50 ÷ getLastLead p50 at ${at}`,
      `search1.c1.${tb}`,
      `last.c1.${tb}`,
    ),
  ];
}

/** The reference points' lines (report.ts): the ideal search page's p50, those measured. */
export function referenceLines(): string[] {
  return ENGINES.flatMap((e) =>
    (
      [
        ['ideal', 'ideal v2 search page, node:http (bench/reference-ideal.ts)'],
        ['fastify', "the ideal search page's work on Fastify (bench/reference-ideal-fastify.ts)"],
      ] as const
    )
      .filter(([name]) => samples.has(`${name}.search.c1.${e}.${LARGEST}.p50`))
      .map(
        ([name, what]) =>
          `| ${what}, ${e} ${LARGEST}, 1 connection | ${f3(med(`${name}.search.c1.${e}.${LARGEST}.p50`))} ms p50 | leadline search = ${f2(med(`search.c1.${e}.${LARGEST}.p50`) / med(`${name}.search.c1.${e}.${LARGEST}.p50`))} × |`,
      ),
  );
}
