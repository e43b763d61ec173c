import type { ApiKey } from '../keys/keys.port.js';
import type { ChangeSource, Lead, LeadKind, LeadSource, StoredLead } from '../leads/lead.js';
import type { Api, UsageRow } from '../retirement/usage.js';

/**
 * Row shapes both engines read, and their one mapping to domain objects: rows stop here.
 * Booleans arrive as 0/1 from SQLite and as true/false from PostgreSQL.
 */

/** Largest epoch a lead can carry (the ECMAScript Date range) plus one, so "no end" is a plain bound. */
export const NO_END = 8_640_000_000_000_001;

/** Lead columns in `LeadRow` order; `l` is leads, `email` the collecting member's e-mail. */
export const leadColumns = (email: string) =>
  `l.seq, l.lead_id, l.epoch, l.time, l.member_id, ${email}, l.user_pid, l.kind, l.location_shared, l.lat, l.long, l.fields, l.uuid, l.source, l.created_at, l.first_name, l.last_name`;

/** Lead columns in `LeadRow` order; `l` is leads, `m` the collecting member. */
export const LEAD_COLUMNS = leadColumns('m.email');

export type LeadRow = [
  number,
  string,
  number,
  string,
  number,
  string,
  string,
  LeadKind,
  number | boolean,
  string | null,
  string | null,
  string,
  string,
  LeadSource,
  number,
  string | null,
  string | null,
];

/** Rows are read as arrays: building a named-key object per row in the driver costs twice as much. */
export function toLead(r: LeadRow): Lead {
  return {
    seq: r[0],
    id: r[1],
    epoch: r[2],
    time: r[3],
    userId: r[4],
    userEmail: r[5],
    userPid: r[6],
    kind: r[7],
    locationShared: r[8] === 1 || r[8] === true,
    lat: r[9],
    long: r[10],
    fields: r[11],
    uuid: r[12],
    source: r[13],
    createdAt: r[14],
    firstName: r[15],
    lastName: r[16],
  };
}

/**
 * A lead with what v2 reads for a change (StoredLead): LEAD_COLUMNS then version, merged_into,
 * changed_via, whether it was erased (migration 12). v1's reads keep to LEAD_COLUMNS: they never need these.
 */
export const storedColumns = (email: string) =>
  `${leadColumns(email)}, l.version, l.merged_into, l.changed_via, l.erased_at IS NOT NULL`;
export const STORED_COLUMNS = storedColumns('m.email');

export type StoredRow = [...LeadRow, number, string | null, ChangeSource | null, number | boolean];

export function toStoredLead(r: StoredRow): StoredLead {
  const lead = toLead(r as unknown as LeadRow) as StoredLead;
  lead.version = r[17];
  lead.mergedInto = r[18] === null ? null : String(r[18]);
  lead.changedVia = r[19];
  lead.erased = r[20] === 1 || r[20] === true;
  return lead;
}

export const KEY_COLUMNS =
  'k.id, k.member_id, m.team_id, k.display, k.label, k.created_at, k.expires_at, k.revoked_at, k.legacy_v1';

export interface KeyRow {
  id: number;
  member_id: number;
  team_id: number;
  display: string;
  label: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  legacy_v1: number | boolean;
}

export function toApiKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    memberId: r.member_id,
    teamId: r.team_id,
    display: r.display,
    label: r.label,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    legacyV1: r.legacy_v1 === 1 || r.legacy_v1 === true,
  };
}

/** A usage ledger row as both engines store it (api_usage). */
export interface UsageDbRow {
  key_id: number;
  api: Api;
  operation: string;
  day: string;
  status: number;
  count: number;
  first_seen: number;
  last_seen: number;
  user_agent: string | null;
}

export function toUsageRow(r: UsageDbRow): UsageRow {
  return {
    keyId: r.key_id,
    api: r.api,
    operation: r.operation,
    day: r.day,
    status: r.status,
    count: r.count,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    userAgent: r.user_agent,
  };
}

/**
 * How many of a team's newest leads the subteam's last lead is first looked for in. A subteam
 * holding a share p of the team's activity is found there unless (1 - p)^64 — rare for any
 * subteam large enough for the per-member plan to be slow; a small or quiet one falls through
 * to that plan, which is cheap for few members. Either way no query walks more than this many
 * of the team's leads.
 */
export const SUBTEAM_WINDOW = 64;
