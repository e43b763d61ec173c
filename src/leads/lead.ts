import type { LeadSource } from '../schemas/lead-vocabulary.js';

/**
 * A lead: a contact a member collected, by a profile connection or a card scan.
 *
 * The columns the service reasons about (identity, time, collector, consent, coordinates) are
 * typed fields. Every other v1 member (`name`, `company`, `crm`, …) is kept verbatim in
 * `fields`, a JSON object text: that is what makes an imported lead come back byte-for-byte
 * (docs/v1-reference.md C1, round trip), and lets the v1 hot path emit a lead without parsing it.
 */
export type LeadKind = 'connection' | 'scan';

export { LEAD_SOURCES, type LeadSource } from '../schemas/lead-vocabulary.js';

/**
 * The source of a lead that arrived with v1 flags only (import): a scan is a business-card
 * scan; a connection is MANUAL when entered by hand, APP_TO_APP when exchanged between apps,
 * else a profile connection. QR_CODE_SCAN only comes from v2 creation.
 */
export function sourceFromV1Flags(kind: LeadKind, isManual: boolean, apptoapp: boolean): LeadSource {
  if (kind === 'scan') return 'BUSINESS_CARD_SCAN';
  if (isManual) return 'MANUAL';
  return apptoapp ? 'APP_TO_APP' : 'PROFILE_CONNECTION';
}

export interface Lead {
  /** Storage sequence: the order the service stored leads in; breaks ties between equal epochs. */
  seq: number;
  /** The v1 `id` (an integer, an e-mail or a phone number, as text). */
  id: string;
  epoch: number;
  time: string;
  userId: number;
  userEmail: string;
  userPid: string;
  kind: LeadKind;
  locationShared: boolean;
  lat: string | null;
  long: string | null;
  /** JSON object text holding every other v1 member of the lead. */
  fields: string;
  /** The v2 `leadId` (UUIDv7). */
  uuid: string;
  source: LeadSource;
  /** When the service stored the lead (ms since the epoch). */
  createdAt: number;
  /** Given names as v2 creation received them; null when the lead only has a v1 `name`. */
  firstName: string | null;
  lastName: string | null;
}

/** Where a change to a lead came from: the v2 API, an import, the admin console, the command line. */
export const CHANGE_SOURCES = ['api', 'import', 'console', 'cli'] as const;
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

/**
 * A lead as v2 reads it for a change: its version (1 when stored, one more with each change; a
 * v2 ETag) and, once merged into another lead, that lead's v2 id — a merged lead is no longer
 * in v1, search or getLastLead, only in the change feed (as merged) and get-by-id.
 */
export interface StoredLead extends Lead {
  version: number;
  mergedInto: string | null;
  /** Where its last change came from; null while it is as stored. */
  changedVia: ChangeSource | null;
  /**
   * Erased (docs/privacy.md "Erasure"): a tombstone without personal values, only the change
   * feed gives it (as `{leadId, erased: true}`), so followers delete their copy.
   */
  erased: boolean;
}

/** v1 members held in typed columns rather than in `Lead.fields`. */
export const COLUMN_MEMBERS = [
  'id',
  'epoch',
  'time',
  'userId',
  'userEmail',
  'userPid',
  'lat',
  'long',
] as const;
