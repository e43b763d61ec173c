import type { Lead } from '../leads/lead.js';

/** How many members' last leads one memory holds before it is emptied and begun again. */
const MEMBERS_MAX = 10_000;

/** One team's remembered answers, by member id; replaced (never cleared) when forgotten. */
type TeamMemory = Map<number, { lead: Lead | null; at: number }>;

/**
 * getLastLead's answers (a member's newest live lead, or none), remembered per member — most of
 * those calls are integrations polling a member whose newest lead has not changed (issue 43's
 * stretch; docs/v1-reference.md "Repeated getLastLead"). The engine decides when an answer may
 * be out of date and calls `forget`: SQLite on every change to the file (FileStamp), PostgreSQL
 * on its own writes and on the notifications of every instance's (postgres/last-leads.ts).
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

  /** The remembered answer (a lead, or null for none), or undefined when there is none to use. */
  recall(teamId: number, memberId: number, now: number): Lead | null | undefined {
    const kept = this.teams.get(teamId)?.get(memberId);
    if (kept === undefined || now - kept.at >= this.ttlMs) return undefined;
    return kept.lead;
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

  /** Keeps `lead` as `memberId`'s answer, read at `at`, unless the team was forgotten since `team` was handed out. */
  keep(team: TeamMemory, teamId: number, memberId: number, lead: Lead | null, at: number): void {
    if (this.teams.get(teamId) !== team) return;
    if (this.size >= MEMBERS_MAX) {
      this.forget();
      return;
    }
    if (!team.has(memberId)) this.size++;
    team.set(memberId, { lead, at });
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
