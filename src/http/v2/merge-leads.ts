import { mergeLeads as mergeLeadsFor } from '../../leads/merge-leads.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { MergeBody } from '../../schemas/lead-patch.js';
import { validBody } from '../route-schema.js';
import { leadIdOf, type V2Handler } from './handler.js';
import { ifMatchOf, sendVersion } from './lead-version.js';

/**
 * POST /api/pub/v2/leads/{leadId}/merge (docs/v2.md "Merge leads"): the leads `mergeLeadIds`
 * names are merged into this one by the mergeLeads use case; the answer is the survivor as it
 * is now, with its ETag. `If-Match` applies to the survivor.
 */
export const mergeLeads: V2Handler = async ({ caller, config, store, now }, request, reply) => {
  const leadId = leadIdOf(request);
  const ifMatch = ifMatchOf(request, config.requireIfMatch);
  const body = validBody(request, MergeBody);
  const lead = await mergeLeadsFor(store, {
    by: { caller },
    leadId,
    mergeLeadIds: body.mergeLeadIds.map((id) => id.toLowerCase()),
    ifMatch,
    source: 'api',
    now,
  });
  sendVersion(reply, lead);
  return { data: leadToV2(lead) };
};
