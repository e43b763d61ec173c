import { normaliseEmail } from './email.js';
import type { ChangeSource, StoredLead } from './lead.js';
import { describeChange } from './lead-change.js';
import type { LeadRecord, LeadStore } from './leads.port.js';
import { fold } from './text.js';

/**
 * The console's lead page (docs/console.md, "Lead page"): find a team's leads by e-mail, and a
 * lead's history of changes and merges as the outbox still holds it — field names, source,
 * time, never a value (no personal data in a history).
 */

/** Leads a search lists at most. */
export const SEARCH_LIMIT = 50;
/** History entries a lead page shows at most (the newest). */
export const HISTORY_LIMIT = 200;

/**
 * An e-mail as the store's index holds it: trimmed, folded as v2's EXACT search folds text (lower
 * case, accents dropped); null when nothing is left. A lookup key only: which leads are the
 * person's is `normaliseEmail`'s rule (email.ts), the one erasure and subject access apply.
 */
export function normalisedEmail(text: string): string | null {
  const folded = fold(text.trim()).trim();
  return folded === '' ? null : folded;
}

/**
 * The team's leads (every team's: null) with this e-mail, normalised (email.ts: trimmed, no
 * case; accents count, as for erasure), found through the folded index; none for an empty one.
 */
export async function leadsByEmail(
  leads: Pick<LeadStore, 'byEmail'>,
  teamId: number | null,
  email: string,
): Promise<StoredLead[]> {
  const value = normalisedEmail(email);
  if (value === null) return [];
  const person = normaliseEmail(email);
  const found = await leads.byEmail(teamId, value, SEARCH_LIMIT);
  return found.filter((lead) => {
    const held = (JSON.parse(lead.fields) as { email?: unknown }).email;
    return typeof held === 'string' && normaliseEmail(held) === person;
  });
}

/** One line of a lead's history: what happened, to which lead, from where, which fields. */
export interface HistoryEntry {
  at: number;
  kind: 'created' | 'updated' | 'merged-into-this' | 'merged-away';
  /** The lead it is about: this one, or one merged into it. */
  leadId: string;
  source: ChangeSource | null;
  /** `updated`: the v2 names of the fields that changed (`systemFields.email`); values never. */
  changedFields: string[];
  /** `merged-away`: the lead this one was merged into. */
  mergedInto: string | null;
  /**
   * The version the entry's lead had after it (1 when stored); null when the event did not
   * record it (written before leadline did), or for a lead merged into this one: its own version.
   */
  version: number | null;
}

/** The record's events as history, oldest first: names of changed fields only, no values. */
export function historyOf(record: LeadRecord): HistoryEntry[] {
  const self = record.lead.uuid;
  return record.events.map((e) => {
    const base = {
      at: e.at,
      leadId: e.leadId,
      source: e.source,
      changedFields: [],
      mergedInto: null,
      version: e.version,
    };
    if (e.type === 'lead.created') return { ...base, kind: 'created' };
    if (e.type === 'lead.merged') {
      // Another lead's merge leaves this one's version as it is (its values change in an update).
      return e.leadId === self
        ? { ...base, kind: 'merged-away', mergedInto: e.mergedInto }
        : { ...base, kind: 'merged-into-this', version: null };
    }
    const changedFields =
      e.before === null || e.after === null
        ? []
        : describeChange(record.lead, e.before, e.after).changedFields;
    return { ...base, kind: 'updated', changedFields };
  });
}
