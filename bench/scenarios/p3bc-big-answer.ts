/**
 * P3b and P3c: the whole team (every lead of the store) in one v1 range. P3b: the server's
 * resident memory grows by less than 64 MB while it answers; P3c: getLastLead probes sent while
 * the answer is read keep their unloaded p99 within 2×.
 *
 * The ideal node:http reference (bench/ideal.ts) is measured the same way, as a line without a
 * target: what the same probes see when everything above the store is the ideal's.
 */

import { type Engine, MAIN } from '../harness/config.js';
import { add, engineName, f1, f2, int, med, type Row, sizeName } from '../harness/figures.js';
import { idealOf } from '../harness/ideals.js';
import type { Job } from '../harness/jobs.js';
import type { Served } from '../harness/servers.js';
import type { Target } from '../lib.js';
import { probe, quantile, type Req, readAll, rssOf } from '../load.js';

export const bigAnswerJob = (s: Served): Job => ({
  name: `big.${s.engine}.${s.size}`,
  run: () => bigAnswer(s.server, `Bearer ${s.key}`, `${s.engine}.${s.size}`),
});

/** The same answer and probes on the ideal node:http reference of `engine`'s MAIN store. */
export function idealBigAnswerJob(engine: Engine): Job {
  const i = idealOf(engine, MAIN);
  if (i === undefined) throw new Error(`no ideal reference on ${engine} ${MAIN}`);
  return {
    name: `big.ideal.${engine}.${MAIN}`,
    run: () => bigAnswer(i.http, `Bearer ${i.key}`, `ideal.${engine}.${MAIN}`),
  };
}

async function bigAnswer(server: Target, auth: string, tag: string): Promise<void> {
  const pid = server.child.pid!;
  const at = (op: string, query = ''): Req => ({ url: `${server.url}/api/pub/leads/${op}${query}`, auth });
  const last = at('getLastLead');
  for (let i = 0; i < 20; i++) await probe(last);
  const unloaded: number[] = [];
  for (let i = 0; i < 200; i++) unloaded.push((await probe(last)).ms);
  const rssBefore = rssOf(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  let done = false;
  const answer = readAll(at('getLeadsTimeRangeForTeam', '?start=0')).finally(() => {
    done = true;
  });
  // Probes sent while the answer is still being read (one every ~20 ms), each timed to its last byte.
  const during: number[] = [];
  while (!done) {
    const p = await probe(last);
    if (p.status !== 200) throw new Error(`getLastLead answered ${p.status} during the big answer`);
    during.push(p.ms);
    await new Promise((r) => setTimeout(r, 20));
  }
  const r = await answer;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  if (r.status !== 200) throw new Error(`big answer (${tag}): ${r.status}`);
  add(`big.ms.${tag}`, r.ms);
  add(`big.mb.${tag}`, r.bytes / 1048576);
  add(`big.rssGrowth.${tag}`, (peak - rssBefore) / 1048576);
  add(`big.unloadedP99.${tag}`, quantile(unloaded, 0.99));
  add(`big.duringP99.${tag}`, quantile(during, 0.99));
  add(`big.duringMax.${tag}`, Math.max(...during));
  add(`big.probes.${tag}`, during.length);
}

export function rows(engine: Engine): Row[] {
  const tm = `${engine}.${MAIN}`;
  return [
    {
      id: 'P3b',
      what: `server RSS growth during a ${sizeName(MAIN)}-lead answer (MB), ${engineName(engine)}`,
      measured: med(`big.rssGrowth.${tm}`),
      target: 64,
      sense: 'le',
      detail: `${f1(med(`big.mb.${tm}`))} MB answered in ${f1(med(`big.ms.${tm}`) / 1000)} s`,
    },
    {
      id: 'P3c',
      what: `getLastLead p99 during the ${sizeName(MAIN)}-lead answer ÷ unloaded p99, ${engineName(engine)}`,
      measured: med(`big.duringP99.${tm}`) / med(`big.unloadedP99.${tm}`),
      target: 2,
      sense: 'le',
      detail: probeDetail(tm),
    },
    {
      id: 'P3c (ideal, no target)',
      what: `the same for the ideal node:http reference (bench/ideal.ts) on the same store, ${engineName(engine)}`,
      measured: med(`big.duringP99.ideal.${tm}`) / med(`big.unloadedP99.ideal.${tm}`),
      target: Number.NaN,
      sense: 'le',
      detail: `${probeDetail(`ideal.${tm}`)}; answered in ${f1(med(`big.ms.ideal.${tm}`) / 1000)} s, RSS growth ${f1(med(`big.rssGrowth.ideal.${tm}`))} MB`,
    },
  ];
}

const probeDetail = (tag: string) =>
  `${f2(med(`big.duringP99.${tag}`))} vs ${f2(med(`big.unloadedP99.${tag}`))} ms (max ${f1(med(`big.duringMax.${tag}`))} ms, ${int(med(`big.probes.${tag}`))} probes)`;
