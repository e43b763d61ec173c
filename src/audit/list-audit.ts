import { requireTeamAdmin } from '../directory/access.js';
import type { Caller } from '../directory/directory.js';
import type { AuditAction, AuditEntry, AuditFilter, AuditStore } from './audit.port.js';

/** Who reads the log: a team admin's key or console session (their team's records), or the operator (a team's, or every record). */
export type AuditReader =
  | { caller: Caller }
  | { member: { teamId: number } }
  | { operator: { teamId: number | null } };

export interface AuditQuery {
  action?: AuditAction;
  /** Records at or after this instant (ms). */
  since?: number;
}

/** The most records one page holds. */
export const MAX_AUDIT_PAGE = 1000;
/** How many records one round trip of an export reads. */
const EXPORT_BATCH = 500;

function filterFor(by: AuditReader, query: AuditQuery): AuditFilter {
  if ('caller' in by) requireTeamAdmin(by.caller);
  const teamId = 'caller' in by ? by.caller.teamId : 'member' in by ? by.member.teamId : by.operator.teamId;
  return { teamId, action: query.action ?? null, since: query.since ?? null };
}

/**
 * One page of the audit log, newest first (docs/privacy.md "Audit log"): records below `before`
 * (the id the previous page ended at; null: from the newest). `more` says whether older ones follow.
 */
export async function listAudit(
  ports: { audit: AuditStore },
  by: AuditReader,
  query: AuditQuery & { before: number | null; limit: number },
): Promise<{ records: AuditEntry[]; more: boolean }> {
  const filter = filterFor(by, query);
  const limit = Math.min(query.limit, MAX_AUDIT_PAGE);
  const found = await ports.audit.list(filter, query.before, limit + 1);
  const records = found.slice(0, limit);
  return { records, more: found.length > records.length };
}

/** Every matching record, newest first, read a batch at a time (the NDJSON export). */
export async function* exportAudit(
  ports: { audit: AuditStore },
  by: AuditReader,
  query: AuditQuery,
): AsyncGenerator<AuditEntry> {
  const filter = filterFor(by, query);
  let before: number | null = null;
  for (;;) {
    const batch = await ports.audit.list(filter, before, EXPORT_BATCH);
    yield* batch;
    const last = batch.at(-1);
    if (batch.length < EXPORT_BATCH || last === undefined) return;
    before = last.id;
  }
}
