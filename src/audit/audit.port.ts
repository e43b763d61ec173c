/**
 * The audit log (docs/privacy.md "Audit log", issue 40 item 7): append-only — a port with no way
 * to change or remove a record. Implemented once per engine in src/storage/ (migration 13).
 */

/** Every action the log records: a closed list of dotted names. */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.removed',
  'webhook.secret_rotated',
  'brownout.scheduled',
  'brownout.removed',
  'lead.updated',
  'lead.merged',
  'lead.erased',
  'subject_access.answered',
  'retention.run',
  'retention.policy_set',
  'retention.policy_cleared',
  'leads.bulk_read',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: an API key (and its member), a team admin signed in to the console, the operator
 * (the command line, or the console's operator session), or the server itself (scheduled jobs).
 */
export type AuditActor =
  | { via: 'key'; keyId: number; memberId: number }
  | { via: 'console'; memberId: number }
  | { via: 'operator' }
  | { via: 'server' };

/**
 * What the action touched: ids, counts, event types, times — never a personal value (no e-mail,
 * name, phone, URL). Flat JSON, so every engine stores it as it is given.
 */
export type AuditDetails = Record<string, string | number | boolean | null | string[] | number[]>;

export interface NewAuditEntry {
  at: number;
  /** The team the action concerns; null: none in particular (a brownout, an all-teams erasure). */
  teamId: number | null;
  actor: AuditActor;
  action: AuditAction;
  details: AuditDetails;
}

export interface AuditEntry extends NewAuditEntry {
  /** Store-wide and increasing: the cursor's position. */
  id: number;
}

export interface AuditFilter {
  /** One team's records; null: every record (the operator). */
  teamId: number | null;
  action: AuditAction | null;
  /** Records at or after this instant (ms); null: from the first. */
  since: number | null;
}

export interface AuditStore {
  /** Appends one record; returns it with its id. */
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Newest first: up to `limit` records matching `filter` whose id is below `before` (null: from the newest). */
  list(filter: AuditFilter, before: number | null, limit: number): Promise<AuditEntry[]>;
}
