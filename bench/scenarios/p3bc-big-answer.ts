/**
 * P3b and P3c: the whole team (every lead of the store) in one v1 range. P3b: the server's
 * resident memory grows by less than 64 MB while it answers; P3c: getLastLead probes sent while
 * the answer is read keep their unloaded p99 within 2×.
 */

import { type Engine, MAIN } from '../harness/config.js';
import { add, engineName, f1, f2, int, med, type Row, sizeName } from '../harness/figures.js';
import type { Job } from '../harness/jobs.js';
import { type Served, v1 } from '../harness/servers.js';
import { probe, quantile, readAll, rssOf } from '../load.js';

export const bigAnswerJob = (s: Served): Job => ({
  name: `big.${s.engine}.${s.size}`,
  run: () => bigAnswer(s),
});

async function bigAnswer(s: Served): Promise<void> {
  const pid = s.server.child.pid!;
  const last = v1(s, 'getLastLead');
  for (let i = 0; i < 20; i++) await probe(last);
  const unloaded: number[] = [];
  for (let i = 0; i < 200; i++) unloaded.push((await probe(last)).ms);
  const rssBefore = rssOf(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  let done = false;
  const answer = readAll(v1(s, 'getLeadsTimeRangeForTeam', '?start=0')).finally(() => {
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
  if (r.status !== 200) throw new Error(`big answer: ${r.status}`);
  const tag = `${s.engine}.${s.size}`;
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
      detail: `${f2(med(`big.duringP99.${tm}`))} vs ${f2(med(`big.unloadedP99.${tm}`))} ms (max ${f1(med(`big.duringMax.${tm}`))} ms, ${int(med(`big.probes.${tm}`))} probes)`,
    },
  ];
}
