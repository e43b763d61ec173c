import { visibleScope } from '../../directory/access.js';
import { mergedError } from '../../leads/lead-writer.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { AppError } from '../../shared/errors.js';
import type { V2Handler } from './handler.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET /api/pub/v2/leads/{leadId}: a lead the caller may see. Another team's lead, a lead of the
 * caller's team they may not read, and an id that does not exist are the same 404. A lead merged
 * into another answers 410 `lead-merged` naming the survivor (`mergedInto`), as docs/v2.md says.
 */
export const getLead: V2Handler = async ({ caller, store }, request) => {
  const { leadId } = request.params as { leadId: string };
  const notFound = () => new AppError('not-found', `No lead ${leadId} for this key.`);
  if (!UUID.test(leadId)) throw notFound();
  const lead = await store.leads.byUuid(await visibleScope(caller, store.directory), leadId.toLowerCase());
  if (lead === null) throw notFound();
  if (lead.mergedInto !== null) throw mergedError(lead);
  return { data: leadToV2(lead) };
};
