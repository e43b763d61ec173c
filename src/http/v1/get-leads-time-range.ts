import type { V1Operation } from './operation.js';
import { parseRange } from './params.js';

/** Operation 4: every lead of the caller in `[start, end)`, oldest first. Any key. */
export const getLeadsTimeRange: V1Operation = {
  name: 'getLeadsTimeRange',
  async run({ caller, query }) {
    return {
      kind: 'range',
      scope: { teamId: caller.teamId, memberId: caller.memberId },
      range: parseRange(query),
    };
  },
};
