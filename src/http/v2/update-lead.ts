import { updateLead as updateLeadFor } from '../../leads/update-lead.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { leadIdOf, type V2Handler } from './handler.js';
import { ifMatchOf, sendVersion } from './lead-version.js';

/**
 * PATCH /api/pub/v2/leads/{leadId} (docs/v2.md "Update a lead"): a JSON Merge Patch of the
 * lead's writable members, applied by the updateLead use case; the answer is the lead as it is
 * now, with its ETag. `If-Match` makes the change conditional on the version it names. The body
 * is checked by the use case, not the route: a read-only member gets its own reason ("is the
 * lead's id and cannot be changed") rather than "unknown field".
 */
export const updateLead: V2Handler = async ({ caller, config, store, now }, request, reply) => {
  const leadId = leadIdOf(request);
  const ifMatch = ifMatchOf(request, config.requireIfMatch);
  const { lead } = await updateLeadFor(store, {
    by: { caller },
    leadId,
    patch: request.body,
    ifMatch,
    source: 'api',
    now,
  });
  sendVersion(reply, lead);
  return { data: leadToV2(lead) };
};
