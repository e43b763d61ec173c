import { visibleScope } from '../../directory/access.js';
import { mergedError } from '../../leads/lead-writer.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { AppError } from '../../shared/errors.js';
import { leadIdOf, type V2Handler } from './handler.js';
import { sendVersion } from './lead-version.js';

/**
 * GET /api/pub/v2/leads/{leadId}: a lead the caller may see, with its version as ETag. Another
 * team's lead, a lead of the caller's team they may not read, and an id that does not exist are
 * the same 404. A lead merged into another answers 410 `lead-merged` naming the survivor
 * (`mergedInto`), as docs/v2.md says.
 */
export const getLead: V2Handler = async ({ caller, store }, request, reply) => {
  const leadId = leadIdOf(request);
  const lead = await store.leads.byUuid(await visibleScope(caller, store.directory), leadId);
  if (lead === null) throw new AppError('not-found', `No lead ${leadId} for this key.`);
  if (lead.mergedInto !== null) throw mergedError(lead);
  sendVersion(reply, lead);
  return { data: leadToV2(lead) };
};
