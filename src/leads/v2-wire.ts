import type { V2Lead } from '../schemas/v2.js';
import { formatInstant } from '../shared/instant.js';
import type { Lead, StoredLead } from './lead.js';
import { splitName } from './text.js';

/**
 * Lead → v2 wire shape, and the v1 → v2 field mapping (docs/v2.md has it as one table).
 * v1 members with a v2 field of their own move there; every other v1 member is kept verbatim
 * in `v1Fields`, so a client migrating from v1 loses nothing. Unset v2 values are `null`.
 */

/** v1 member → v2 `systemFields` member, for the members that map one to one. */
export const V1_TO_SYSTEM_FIELDS = {
  name: 'fullName',
  email: 'email',
  number: 'phone',
  company: 'companyName',
  jobTitle: 'jobTitle',
  website: 'website',
  linkedIn: 'linkedinUrl',
  address: 'address',
  note: 'note',
  bio: 'bio',
  image: 'profileImageUrl',
  card: 'businessCardImageUrl',
} as const;

/** v1 members that become part of the v2 lead itself rather than of `v1Fields`. */
const MAPPED = new Set<string>([...Object.keys(V1_TO_SYSTEM_FIELDS), 'location']);

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function degrees(v: string | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export function leadToV2(lead: Lead): V2Lead {
  const fields = JSON.parse(lead.fields) as Record<string, unknown>;
  const fullContact = (fields.fullContact ?? {}) as { twitter?: unknown };
  const name = text(fields.name);
  const split = name === null ? { first: null, last: null } : splitName(name);
  // Coordinates only with consent (docs/v1-reference.md C1 holds in v2 too).
  const latitude = lead.locationShared ? degrees(lead.lat) : null;
  const longitude = lead.locationShared ? degrees(lead.long) : null;
  const label = text(fields.location);
  const v1Fields: Record<string, unknown> = { time: lead.time, userEmail: lead.userEmail };
  for (const [k, v] of Object.entries(fields)) if (!MAPPED.has(k)) v1Fields[k] = v;
  // The coordinates' v1 text as well ("52.5200", which the number 52.52 cannot give back), so a
  // v1 lead rebuilt from a v2 one is exact: the typed client's v1 module does so. Consent only.
  if (lead.locationShared) {
    if (lead.lat !== null) v1Fields.lat = lead.lat;
    if (lead.long !== null) v1Fields.long = lead.long;
  }
  return {
    leadId: lead.uuid,
    legacyLeadId: lead.id,
    assignedMembers: [lead.userId],
    leadSource: lead.source,
    captureDatetime: formatInstant(lead.epoch),
    createdAt: formatInstant(lead.createdAt),
    systemFields: {
      firstName: lead.firstName ?? split.first,
      lastName: lead.lastName ?? split.last,
      fullName: name,
      email: text(fields.email),
      phone: text(fields.number),
      companyName: text(fields.company),
      jobTitle: text(fields.jobTitle),
      website: text(fields.website),
      linkedinUrl: text(fields.linkedIn),
      twitterUrl: text(fullContact.twitter),
      address: text(fields.address),
      note: text(fields.note),
      bio: text(fields.bio),
      profileImageUrl: text(fields.image),
      businessCardImageUrl: text(fields.card),
      location:
        label === null && latitude === null && longitude === null ? null : { label, latitude, longitude },
      userPid: lead.userPid,
    },
    v1Fields,
  };
}

/** The change feed's entry for a merged lead (docs/v2.md "Lead changes"): a follower deletes it. */
export interface MergedFeedEntry {
  leadId: string;
  mergedInto: string;
}

/**
 * A change-feed entry: the lead as it is, or — merged into another — the entry that names its
 * survivor, as the feed route answers it.
 */
/** An erased lead's entry in the change feed (docs/privacy.md "Erasure"): a follower deletes it. */
export interface ErasedFeedEntry {
  leadId: string;
  erased: true;
}

export function feedEntryToV2(lead: StoredLead): V2Lead | MergedFeedEntry | ErasedFeedEntry {
  if (lead.erased) return { leadId: lead.uuid, erased: true };
  return lead.mergedInto === null ? leadToV2(lead) : { leadId: lead.uuid, mergedInto: lead.mergedInto };
}
