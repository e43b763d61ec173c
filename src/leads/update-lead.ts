import type { AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { ScopeDirectory } from '../directory/access.js';
import { emailOf, refuseSuppressed, type SuppressionPorts } from '../privacy/suppression.js';
import type { LeadPatch } from '../schemas/lead-patch.js';
import type { StoredLead } from './lead.js';
import { sameValues, valuesOf } from './lead-change.js';
import { checkPatch, patchedValues } from './lead-patch.js';
import {
  ATTEMPTS,
  type ChangeContext,
  leadToChange,
  preconditionFailed,
  textOf,
  writerActor,
  writerScope,
} from './lead-writer.js';
import type { LeadStore } from './leads.port.js';

export interface UpdateLeadInput extends ChangeContext {
  leadId: string;
  /** A JSON Merge Patch (RFC 7396) of the writable members (lead-patch.ts), as received. */
  patch: unknown;
  /**
   * The version the writer last saw (`If-Match`): the update happens only at that version, else
   * `precondition-failed`. Absent: the patch is applied to the lead as it is (last write wins).
   */
  ifMatch?: number | null;
}

export interface UpdatedLead {
  lead: StoredLead;
  /** False when the patch left every value as it was: nothing was written, nothing announced. */
  changed: boolean;
}

/**
 * Updates a lead (docs/v2.md "Update a lead"): the patch is checked (writable members, creation's
 * limits, storable text), applied to the lead as it is, and the new values stored with their
 * `lead.updated` event in one transaction; the lead moves to the end of the change feed.
 * `PATCH /api/pub/v2/leads/{leadId}` and `leadline leads update` both update through here; a
 * written change leaves one `lead.updated` audit record (which members changed, not their values).
 */
export async function updateLead(
  ports: { leads: LeadStore; directory: ScopeDirectory; audit: AuditStore } & SuppressionPorts,
  input: UpdateLeadInput,
): Promise<UpdatedLead> {
  const patch = checkPatch(input.patch);
  for (let attempt = 1; ; attempt++) {
    const lead = await leadToChange(ports, input.by, input.leadId);
    const expected = input.ifMatch ?? null;
    if (expected !== null && lead.version !== expected) throw preconditionFailed(lead, expected);
    const before = valuesOf(lead);
    const values = patchedValues(lead, patch);
    if (sameValues(before, values)) return { lead, changed: false };
    // A new e-mail that was erased and suppressed is refused (docs/privacy.md "Suppression").
    const email = emailOf(values.fields);
    if (email !== emailOf(before.fields)) await refuseSuppressed(ports, writerScope(input.by).teamId, email);
    const result = await ports.leads.update({
      teamId: writerScope(input.by).teamId,
      uuid: lead.uuid,
      version: lead.version,
      values,
      before,
      ...textOf(values),
      source: input.source,
      at: input.now,
    });
    if (result.kind === 'written') {
      await recordAudit(ports, {
        at: input.now,
        teamId: writerScope(input.by).teamId,
        actor: writerActor(input.by),
        action: 'lead.updated',
        details: {
          leadId: result.lead.uuid,
          version: result.lead.version,
          changed: patchedMembers(patch),
        },
      });
      return { lead: result.lead, changed: true };
    }
    // Lost a race: with If-Match that is the writer's precondition failing; else try again.
    if (expected !== null || attempt >= ATTEMPTS) {
      const now = await leadToChange(ports, input.by, input.leadId);
      throw preconditionFailed(now, expected ?? lead.version);
    }
  }
}

/** The members a patch names (`systemFields.companyName`, `locationShared`): names, never values. */
function patchedMembers(patch: LeadPatch): string[] {
  const named = Object.keys(patch.systemFields ?? {}).map((k) => `systemFields.${k}`);
  if (patch.locationShared !== undefined) named.push('locationShared');
  return named.sort();
}
