import type { V1Operation } from './operation.js';

/** Operation 1: the caller's own most recent lead. Any key. */
export const getLastLead: V1Operation = {
  name: 'getLastLead',
  async run({ caller, store }) {
    return { kind: 'last', lead: await store.leads.lastOfMember(caller.teamId, caller.memberId) };
  },
};
