import type { Lead } from './lead.js';
import type { LeadValues } from './leads.port.js';
import { leadToV2 } from './v2-wire.js';

/**
 * What a change to a lead is, in the v2 lead's words (docs/webhooks.md `lead.updated`): the
 * values a change may replace (LeadValues), whether two sets of them differ, and which v2 fields
 * differ between them with their values before.
 */

export function valuesOf(lead: Lead): LeadValues {
  return {
    time: lead.time,
    userPid: lead.userPid,
    kind: lead.kind,
    locationShared: lead.locationShared,
    lat: lead.lat,
    long: lead.long,
    fields: lead.fields,
    source: lead.source,
    firstName: lead.firstName,
    lastName: lead.lastName,
  };
}

/** Whether storing `after` over `before` changes anything stored. */
export function sameValues(a: LeadValues, b: LeadValues): boolean {
  return (
    a.time === b.time &&
    a.userPid === b.userPid &&
    a.kind === b.kind &&
    a.locationShared === b.locationShared &&
    a.lat === b.lat &&
    a.long === b.long &&
    a.fields === b.fields &&
    a.source === b.source &&
    a.firstName === b.firstName &&
    a.lastName === b.lastName
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The v2 fields that differ between `lead` with `before` and with `after`: `leadSource`,
 * `systemFields.<member>` and `v1Fields.<member>` (its `time` included); `previous` holds their
 * values with `before`, shaped like the v2 lead (`{"systemFields": {"email": "old@x.test"}}`; a
 * member that had no value is `null`).
 */
export function describeChange(
  lead: Lead,
  before: LeadValues,
  after: LeadValues,
): { changedFields: string[]; previous: Record<string, unknown> } {
  const old = leadToV2({ ...lead, ...before });
  const now = leadToV2({ ...lead, ...after });
  const changedFields: string[] = [];
  const previous: Record<string, unknown> = {};
  if (old.leadSource !== now.leadSource) {
    changedFields.push('leadSource');
    previous.leadSource = old.leadSource;
  }
  for (const group of ['systemFields', 'v1Fields'] as const) {
    const a = old[group] as Record<string, unknown>;
    const b = now[group] as Record<string, unknown>;
    const was: Record<string, unknown> = {};
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (same(a[name], b[name])) continue;
      changedFields.push(`${group}.${name}`);
      was[name] = a[name] ?? null;
    }
    if (Object.keys(was).length > 0) previous[group] = was;
  }
  return { changedFields, previous };
}
