import type { AuditActor } from '../audit/audit.port.js';
import { keyActor } from '../audit/record-audit.js';
import { type ScopeDirectory, visibleScope, writableScope } from '../directory/access.js';
import type { Caller } from '../directory/directory.js';
import { AppError } from '../shared/errors.js';
import type { ChangeSource, StoredLead } from './lead.js';
import type { LeadScope, LeadStore } from './leads.port.js';
import { searchable } from './text.js';

/**
 * Who changes leads, and the lookups every change starts with (update-lead.ts, merge-leads.ts):
 * an API key's caller (a team admin the team's leads, anyone else their own), or the operator
 * on the command line, for any lead of the team named.
 */
export type LeadWriter = { caller: Caller } | { operator: { teamId: number } };

/** What every lead change is given besides its own input. */
export interface ChangeContext {
  by: LeadWriter;
  /** `api`, `console` or `cli`: what the change's events and the feed say it came from. */
  source: ChangeSource;
  now: number;
}

/** Who the audit log names for a change: the key's caller, or the operator. */
export function writerActor(by: LeadWriter): AuditActor {
  return 'caller' in by ? keyActor(by.caller) : { via: 'operator' };
}

export function writerScope(by: LeadWriter): LeadScope {
  return 'caller' in by ? writableScope(by.caller) : { teamId: by.operator.teamId };
}

/**
 * The lead `leadId` names for a change: `not-found` when the writer cannot see it (or it does
 * not exist), `forbidden` when it can read it but not change it, `lead-merged` when it was merged.
 */
export async function leadToChange(
  ports: { leads: LeadStore; directory: ScopeDirectory },
  by: LeadWriter,
  leadId: string,
  pointer = 'leadId',
): Promise<StoredLead> {
  const lead = await ports.leads.byUuid(writerScope(by), leadId, true);
  if (lead === null) {
    if (
      'caller' in by &&
      (await ports.leads.byUuid(await visibleScope(by.caller, ports.directory), leadId)) !== null
    ) {
      throw new AppError(
        'forbidden',
        `Lead ${leadId} can be read with this key but not changed: a member changes their own leads, a team admin the team's.`,
      );
    }
    throw new AppError(
      'not-found',
      `No lead ${leadId}${pointer === 'leadId' ? '' : ` (${pointer})`} for this key.`,
    );
  }
  if (lead.mergedInto !== null) throw mergedError(lead);
  return lead;
}

export function mergedError(lead: StoredLead): AppError {
  return new AppError('lead-merged', `Lead ${lead.uuid} was merged into lead ${lead.mergedInto}.`, {
    mergedInto: lead.mergedInto,
  });
}

export function preconditionFailed(lead: StoredLead, expected: number): AppError {
  return new AppError(
    'precondition-failed',
    `Lead ${lead.uuid} is at version ${lead.version}, not ${expected}: it changed meanwhile. Read it again and apply the change to what it is now.`,
    { currentVersion: lead.version },
  );
}

/** A lead's searchable text for its new values (NewLead `text`, `hasEmail`). */
export function textOf(values: { fields: string; firstName: string | null; lastName: string | null }) {
  return searchable(JSON.parse(values.fields) as Record<string, unknown>, values);
}

/** Attempts of a change without If-Match: a writer that lost a race reads the lead again and re-applies. */
export const ATTEMPTS = 8;
