import { requireTeamAdmin } from '../../directory/access.js';
import type { V1Operation } from './operation.js';

/** Operation 2: the most recent lead of anyone on the caller's team. Team admins only. */
export const getLastLeadTeam: V1Operation = {
  name: 'getLastLeadTeam',
  async run({ caller, store }) {
    requireTeamAdmin(caller);
    return { kind: 'last', lead: await store.leads.lastOfTeam(caller.teamId) };
  },
};
