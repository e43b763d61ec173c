import { visibleScope } from '../../directory/access.js';
import { findDuplicates as findDuplicatesIn } from '../../leads/find-duplicates.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { DuplicatesBody } from '../../schemas/lead-patch.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';

/**
 * POST /api/pub/v2/leads/duplicates (docs/v2.md "Find duplicates"): groups of the leads the key
 * may read that share a normalised e-mail or phone, each with what they share.
 */
export const findDuplicates: V2Handler = async ({ caller, store }, request) => {
  const body = validBody(request, DuplicatesBody);
  const groups = await findDuplicatesIn(store, {
    scope: await visibleScope(caller, store.directory),
    limit: body.limit ?? 20,
  });
  return {
    data: {
      groups: groups.map((g) => ({
        matchedOn: g.keys.map((key) => {
          const at = key.indexOf(':');
          return { field: key.slice(0, at), value: key.slice(at + 1) };
        }),
        leads: g.leads.map(leadToV2),
      })),
    },
  };
};
