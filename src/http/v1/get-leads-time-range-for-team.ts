import { requireTeamAdmin } from '../../directory/access.js';
import type { V1Operation } from './operation.js';
import { parseRange } from './params.js';

/** Operation 5: every lead of the caller's team in `[start, end)`, oldest first. Team admins only. */
export const getLeadsTimeRangeForTeam: V1Operation = {
  name: 'getLeadsTimeRangeForTeam',
  async run({ caller, query }) {
    const range = parseRange(query);
    requireTeamAdmin(caller);
    return { kind: 'range', scope: { teamId: caller.teamId }, range };
  },
};
