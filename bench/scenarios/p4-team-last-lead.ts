/**
 * P4: the newest lead of a whole team (getLastLeadTeam) and of a subteam (getLastLeadSubTeam),
 * in a team of 1,000 members, within 2× getLastLead's median latency on one connection.
 */
import { type Engine, MAIN, MEMBERS } from '../harness/config.js';
import { engineName, f3, med, type Row, sizeName } from '../harness/figures.js';
import { type Job, loadJob } from '../harness/jobs.js';
import { type Served, v1 } from '../harness/servers.js';

export const teamJobs = (s: Served): Job[] => [
  loadJob(`team.c1.${s.engine}.${s.size}`, v1(s, 'getLastLeadTeam'), 1),
  loadJob(`subteam.c1.${s.engine}.${s.size}`, v1(s, 'getLastLeadSubTeam', '?subTeamId=1'), 1),
];

export function rows(engine: Engine): Row[] {
  const tm = `${engine}.${MAIN}`;
  return (['team', 'subteam'] as const).map(
    (op): Row => ({
      id: 'P4',
      what: `getLastLead${op === 'team' ? 'Team' : 'SubTeam'} p50 ÷ getLastLead p50, ${MEMBERS}-member team, ${sizeName(MAIN)}, ${engineName(engine)}`,
      measured: med(`${op}.c1.${tm}.p50`) / med(`last.c1.${tm}.p50`),
      target: 2,
      sense: 'le',
      detail: `${f3(med(`${op}.c1.${tm}.p50`))} vs ${f3(med(`last.c1.${tm}.p50`))} ms`,
    }),
  );
}
