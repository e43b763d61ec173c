import type { LeadSource } from '../../src/leads/lead.js';
import type { NewLead } from '../../src/leads/leads.port.js';
import { searchable } from '../../src/leads/text.js';

/**
 * A lead as a creation hands it to the store (NewLead), for the store tests: `fields` and the
 * given names as stated, the rest plain — collected at a connection, no location, user pid
 * `p<memberId>`, the time label `label` unless `time` says otherwise.
 */
export function newLeadOf(lead: {
  teamId: number;
  memberId: number;
  id: string | null;
  epoch: number;
  fields: Record<string, unknown>;
  source: LeadSource;
  firstName: string | null;
  lastName: string | null;
  time?: string;
}): NewLead {
  const { teamId, memberId, id, epoch, fields, source, firstName, lastName } = lead;
  return {
    teamId,
    memberId,
    id,
    epoch,
    time: lead.time ?? 'label',
    userPid: `p${memberId}`,
    kind: 'connection',
    locationShared: false,
    lat: null,
    long: null,
    fields: JSON.stringify(fields),
    source,
    firstName,
    lastName,
    ...searchable(fields, { firstName, lastName }),
  };
}
