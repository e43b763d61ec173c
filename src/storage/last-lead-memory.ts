import type { Lead } from '../leads/lead.js';
import type { SubteamLast } from '../leads/leads.port.js';

/** How many answers one memory holds before it is emptied and begun again. */
const ANSWERS_MAX = 10_000;

/**
 * What an answer is remembered under, within its team: a member's id (getLastLead), TEAM_LAST
 * (getLastLeadTeam), or subteamLast(…) (getLastLeadSubTeam: the asking member's access with the
 * subteam's last lead). The key decides the answer's type: Lead | null, or SubteamLast | null.
 */
export type AnswerKey = number | string;
export const TEAM_LAST = 'team';
export const subteamLast = (subteamId: number, memberId: number): AnswerKey =>
  `subteam ${subteamId} ${memberId}`;

/** An answer as remembered: a last lead, a subteam's (null: no such subteam), or none. */
export type Remembered = Lead | SubteamLast | null;

/** One team's remembered answers, by AnswerKey; replaced (never cleared) when forgotten. */
type TeamMemory = Map<AnswerKey, { answer: Remembered; at: number }>;

/**
 * The last-lead operations' answers (a member's, the team's or a subteam's newest live lead, or
 * none), remembered per team — most of those calls are integrations polling a member whose
 * newest lead has not changed (issue 43's stretch; docs/v1-reference.md "Repeated
 * getLastLead"). The engine decides when an answer may be out of date and calls `forget`: SQLite
 * on every change to the file (FileStamp), PostgreSQL on its own writes and on the notifications
 * of every instance's (postgres/last-leads.ts).
 *
 * A read that began before a `forget` must not keep its answer after it: `since(team)` hands out
 * the team's memory as it is when the read begins, and `keep` stores only into that same memory,
 * if it is still the team's. A forget replaces the team's memory, so a raced answer is dropped.
 * The same answer object is handed to every caller: the HTTP layer keeps its body beside it.
 */
export class LastLeadMemory {
  private teams = new Map<number, TeamMemory>();
  private size = 0;

  /** `ttlMs`: an answer is not used once this old (PostgreSQL's bound should a notification be lost). */
  constructor(private readonly ttlMs = Number.POSITIVE_INFINITY) {}

  /**
   * The remembered answer under `key` (of the type the key decides: AnswerKey), or undefined
   * when there is none to use.
   */
  recall<T extends Remembered>(teamId: number, key: AnswerKey, now: number): T | undefined {
    const kept = this.teams.get(teamId)?.get(key);
    if (kept === undefined || now - kept.at >= this.ttlMs) return undefined;
    return kept.answer as T;
  }

  /** The team's memory now: pass it to `keep` with the answer of a read begun after this call. */
  since(teamId: number): TeamMemory {
    let team = this.teams.get(teamId);
    if (team === undefined) {
      team = new Map();
      this.teams.set(teamId, team);
    }
    return team;
  }

  /** Keeps `answer` under `key`, read at `at`, unless the team was forgotten since `team` was handed out. */
  keep(team: TeamMemory, teamId: number, key: AnswerKey, answer: Remembered, at: number): void {
    if (this.teams.get(teamId) !== team) return;
    if (this.size >= ANSWERS_MAX) {
      this.forget();
      return;
    }
    if (!team.has(key)) this.size++;
    team.set(key, { answer, at });
  }

  /** Forgets a team's answers, or every team's. */
  forget(teamId?: number): void {
    if (teamId === undefined) {
      this.teams = new Map();
      this.size = 0;
      return;
    }
    const team = this.teams.get(teamId);
    if (team === undefined) return;
    this.size -= team.size;
    this.teams.delete(teamId);
  }
}
