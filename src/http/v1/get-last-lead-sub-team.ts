import { AppError } from '../../shared/errors.js';
import type { V1Operation } from './operation.js';
import { parseSubteamId } from './params.js';

/**
 * Operation 3: the most recent lead of a subteam's current members. Team admins, or admins of
 * that subteam. An unknown subteam and another team's subteam get the same 404 (C2).
 */
export const getLastLeadSubTeam: V1Operation = {
  name: 'getLastLeadSubTeam',
  async run({ caller, query, store }) {
    const subteamId = parseSubteamId(query);
    // The access and the lead come in one read; a refused caller's lead is never sent.
    const last = await store.leads.lastOfSubteam(caller.teamId, subteamId, caller.memberId);
    if (last === null) throw new AppError('not-found', `No subteam ${subteamId} on your team.`);
    if (caller.role !== 'admin' && !last.memberIsAdmin) {
      throw new AppError(
        'forbidden',
        "Reading a subteam's leads needs a team admin's key or an admin of that subteam.",
      );
    }
    return { kind: 'last', lead: last.lead };
  },
};
