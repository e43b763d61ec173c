import { AppError, invalidParams } from '../shared/errors.js';
import type { Caller } from './directory.js';

/** Team-wide operations need a team admin's key (docs/v1-reference.md C2). */
export function requireTeamAdmin(caller: Caller): void {
  if (caller.role !== 'admin') {
    throw new AppError(
      'forbidden',
      "This operation reads the whole team's leads and needs a team admin's key.",
    );
  }
}

/** What `searchScope` and `visibleScope` need to know about the team's structure. */
export interface ScopeDirectory {
  subteamAccess(
    teamId: number,
    subteamId: number,
    memberId: number,
  ): Promise<{ memberIsAdmin: boolean } | null>;
  findMember(ref: number): Promise<{ teamId: number } | null>;
  adminSubteams(teamId: number, memberId: number): Promise<number[]>;
  administers(teamId: number, adminId: number, memberId: number): Promise<boolean>;
}

/** Whose leads a v2 read covers (store.ts LeadScope, repeated here to keep the domain store-free). */
export interface Scope {
  teamId: number;
  members?: number[];
  subteams?: number[];
}

/**
 * Every lead the caller may see (v2 changes and get-by-id): a team admin the whole team; anyone
 * else their own leads and those of the subteams they administer (docs/v1-reference.md C2).
 */
export async function visibleScope(caller: Caller, directory: ScopeDirectory): Promise<Scope> {
  if (caller.role === 'admin') return { teamId: caller.teamId };
  const subteams = await directory.adminSubteams(caller.teamId, caller.memberId);
  return subteams.length === 0
    ? { teamId: caller.teamId, members: [caller.memberId] }
    : { teamId: caller.teamId, members: [caller.memberId], subteams };
}

/**
 * The leads the caller may change (docs/v2.md "Update a lead"): a team admin every lead of the
 * team, anyone else their own — narrower than reading: a subteam admin reads the subteam's
 * leads but changes only their own.
 */
export function writableScope(caller: Caller): Scope {
  return caller.role === 'admin'
    ? { teamId: caller.teamId }
    : { teamId: caller.teamId, members: [caller.memberId] };
}

export interface ScopeFilters {
  teamId?: number;
  subteamIds?: number[];
  assignedMemberIds?: number[];
}

/**
 * The one scope of a v2 search, checked against the caller's role as v1 checks its operations
 * (C2): the team for team admins; subteams for their admins; members for themselves, their
 * subteam admins and team admins. Subteams and members that do not exist or belong to another
 * team are the same 404, so ids elsewhere cannot be probed.
 */
export async function searchScope(
  caller: Caller,
  f: ScopeFilters,
  directory: ScopeDirectory,
): Promise<Scope> {
  const given = [f.teamId, f.subteamIds, f.assignedMemberIds].filter((s) => s !== undefined).length;
  if (given !== 1) {
    throw invalidParams([
      { name: '/filters', reason: 'give exactly one scope: teamId, subteamIds or assignedMemberIds' },
    ]);
  }
  if (f.teamId !== undefined) {
    requireTeamAdmin(caller);
    if (f.teamId !== caller.teamId) {
      throw new AppError(
        'forbidden',
        `A key reads its own team only: this key's team is ${caller.teamId} (GET /api/pub/v2/me shows it), not ${f.teamId}.`,
      );
    }
    return { teamId: caller.teamId };
  }
  if (f.subteamIds !== undefined) {
    for (const id of f.subteamIds) {
      const access = await directory.subteamAccess(caller.teamId, id, caller.memberId);
      if (access === null) throw new AppError('not-found', `No subteam ${id} on your team.`);
      if (caller.role !== 'admin' && !access.memberIsAdmin) {
        throw new AppError(
          'forbidden',
          `Reading subteam ${id} needs a team admin's key or an admin of that subteam.`,
        );
      }
    }
    return { teamId: caller.teamId, subteams: f.subteamIds };
  }
  const members = f.assignedMemberIds ?? [];
  for (const id of members) {
    const member = await directory.findMember(id);
    if (member === null || member.teamId !== caller.teamId) {
      throw new AppError('not-found', `No member ${id} on your team.`);
    }
    if (caller.role === 'admin' || id === caller.memberId) continue;
    if (!(await directory.administers(caller.teamId, caller.memberId, id))) {
      throw new AppError(
        'forbidden',
        `Reading member ${id}'s leads needs a team admin's key or an admin of a subteam they belong to.`,
      );
    }
  }
  return { teamId: caller.teamId, members };
}
