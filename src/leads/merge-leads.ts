import type { AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { ScopeDirectory } from '../directory/access.js';
import { invalidParams } from '../shared/errors.js';
import type { StoredLead } from './lead.js';
import { valuesOf } from './lead-change.js';
import { mergePatch, patchedValues } from './lead-patch.js';
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

/** How many leads one merge may fold into a survivor. */
export const MAX_MERGED = 10;

export interface MergeLeadsInput extends ChangeContext {
  /** The survivor: it keeps its id. */
  leadId: string;
  /** The leads merged into it: 1–MAX_MERGED distinct ids of the same team, not the survivor. */
  mergeLeadIds: string[];
  /** The survivor's version the writer last saw (`If-Match`); absent: as it is. */
  ifMatch?: number | null;
}

/**
 * Merges leads into a survivor (docs/v2.md "Merge leads"): the survivor keeps its id and takes,
 * for each contact member it has no value for, the first value among the merged leads in the
 * order given (lead-patch.ts `mergePatch`); each merged lead records `mergedInto`, leaves v1,
 * search and getLastLead, and is announced (`lead.merged`) — the survivor too when its values
 * changed (`lead.updated`), all in one transaction. `POST /api/pub/v2/leads/{leadId}/merge` and
 * `leadline leads merge` both merge through here; one `lead.merged` audit record (ids only).
 */
export async function mergeLeads(
  ports: { leads: LeadStore; directory: ScopeDirectory; audit: AuditStore },
  input: MergeLeadsInput,
): Promise<StoredLead> {
  checkIds(input.leadId, input.mergeLeadIds);
  for (let attempt = 1; ; attempt++) {
    const survivor = await leadToChange(ports, input.by, input.leadId);
    const expected = input.ifMatch ?? null;
    if (expected !== null && survivor.version !== expected) throw preconditionFailed(survivor, expected);
    const merged: StoredLead[] = [];
    for (const [i, id] of input.mergeLeadIds.entries())
      merged.push(await leadToChange(ports, input.by, id, `mergeLeadIds[${i}]`));
    const patch = mergePatch(survivor, merged);
    const before = valuesOf(survivor);
    const values = patch === null ? before : patchedValues(survivor, patch);
    const result = await ports.leads.merge({
      survivor: {
        teamId: writerScope(input.by).teamId,
        uuid: survivor.uuid,
        version: survivor.version,
        values,
        before,
        ...textOf(values),
        source: input.source,
        at: input.now,
      },
      merged: merged.map((m) => ({ uuid: m.uuid, version: m.version })),
    });
    if (result.kind === 'written') {
      await recordAudit(ports, {
        at: input.now,
        teamId: writerScope(input.by).teamId,
        actor: writerActor(input.by),
        action: 'lead.merged',
        details: { leadId: result.lead.uuid, mergedLeadIds: merged.map((m) => m.uuid) },
      });
      return result.lead;
    }
    if (expected !== null || attempt >= ATTEMPTS) {
      const now = await leadToChange(ports, input.by, input.leadId);
      throw preconditionFailed(now, expected ?? survivor.version);
    }
  }
}

function checkIds(survivor: string, ids: string[]): void {
  const problems: { name: string; reason: string }[] = [];
  if (ids.length === 0) problems.push({ name: '/mergeLeadIds', reason: 'must name at least one lead' });
  if (ids.length > MAX_MERGED)
    problems.push({ name: '/mergeLeadIds', reason: `may name at most ${MAX_MERGED} leads` });
  const seen = new Set<string>();
  for (const [i, id] of ids.entries()) {
    const key = id.toLowerCase();
    if (key === survivor.toLowerCase())
      problems.push({
        name: `/mergeLeadIds/${i}`,
        reason: 'is the lead merged into: a lead cannot merge into itself',
      });
    else if (seen.has(key)) problems.push({ name: `/mergeLeadIds/${i}`, reason: 'is named twice' });
    seen.add(key);
  }
  if (problems.length > 0) throw invalidParams(problems);
}
