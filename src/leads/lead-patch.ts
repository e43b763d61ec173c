import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { LeadPatch, READ_ONLY_MEMBERS } from '../schemas/lead-patch.js';
import { describeErrors, type SchemaError } from '../schemas/schema-errors.js';
import type { V2Lead } from '../schemas/v2.js';
import { invalidParams } from '../shared/errors.js';
import { findUnstorableText } from '../shared/storable-text.js';
import type { Lead } from './lead.js';
import type { LeadValues } from './leads.port.js';
import { leadToV2, V1_TO_SYSTEM_FIELDS } from './v2-wire.js';

/**
 * A lead update as a JSON Merge Patch (RFC 7396) of its v2 shape, turned into the values to
 * store (docs/v2.md "Update a lead"). The patch is applied to the lead as v2 shows it, then
 * written back as the v1 members it maps to, touching only the members the patch names: every
 * other v1 member — `views`, `crm`, an imported `""` — stays byte for byte.
 */

type SystemFields = V2Lead['systemFields'];
type Location = NonNullable<SystemFields['location']>;

const check = Compile(LeadPatch as TSchema);

/** The patch, checked: members, types and limits of creation, storable text; else `invalid-parameters`. */
export function checkPatch(patch: unknown): LeadPatch {
  if (typeof patch === 'object' && patch !== null && !Array.isArray(patch)) {
    const body = patch as Record<string, unknown>;
    const sf = body.systemFields as Record<string, unknown> | undefined;
    const named = [
      ...Object.keys(body).map((k) => `/${k}`),
      ...(typeof sf === 'object' && sf !== null ? Object.keys(sf).map((k) => `/systemFields/${k}`) : []),
    ];
    const fixed = named.filter((n) => READ_ONLY_MEMBERS[n] !== undefined);
    if (fixed.length > 0) {
      throw invalidParams(
        fixed.map((name) => ({ name, reason: READ_ONLY_MEMBERS[name]! })),
        fixed.map((n) => `${n.slice(1).replaceAll('/', '.')} ${READ_ONLY_MEMBERS[n]}`).join('; '),
      );
    }
  }
  if (!check.Check(patch)) {
    const problems = describeErrors(LeadPatch, check.Errors(patch) as SchemaError[]);
    throw invalidParams(
      problems.map((p) => ({ name: p.pointer, reason: p.reason })),
      problems.map((p) => p.sentence).join('; '),
    );
  }
  const unstorable = findUnstorableText(patch);
  if (unstorable !== null) {
    const name = `/${unstorable.path.join('/')}`;
    throw invalidParams([{ name, reason: unstorable.reason }]);
  }
  return patch as LeadPatch;
}

const CONTACT = ['firstName', 'lastName', 'fullName', 'email', 'phone', 'companyName'] as const;

/** v2 `systemFields` member → the v1 member it is stored as (the inverse of v2-wire.ts). */
const STORED_AS = Object.fromEntries(
  Object.entries(V1_TO_SYSTEM_FIELDS).map(([v1, v2]) => [v2, v1]),
) as Record<string, string>;

const joined = (first: string | null, last: string | null): string | null => {
  const text = [first, last].filter((p) => p !== null && p !== '').join(' ');
  return text === '' ? null : text;
};

/** RFC 7396 on the location object: null removes it, an object's null members remove theirs. */
function patchLocation(
  current: Location | null,
  patch: NonNullable<LeadPatch['systemFields']>['location'],
): Location | null {
  if (patch === undefined) return current;
  if (patch === null) return null;
  const next: Location = { ...(current ?? { label: null, latitude: null, longitude: null }) };
  if (patch.label !== undefined) next.label = patch.label;
  if (patch.latitude !== undefined) next.latitude = patch.latitude;
  if (patch.longitude !== undefined) next.longitude = patch.longitude;
  return next.label === null && next.latitude === null && next.longitude === null ? null : next;
}

/**
 * The values `lead` has after `patch` (checked by checkPatch):
 * - each named `systemFields` member is set (a string) or removed (`null`) in its v1 member;
 * - names: a `firstName`/`lastName` change is kept as given; `fullName` follows them when it was
 *   their join before and is not itself in the patch;
 * - coordinates only with consent, as at creation: kept as a pair when `locationShared` is true;
 *   `locationShared: false` (or null) removes them; coordinates sent without consent are dropped;
 * - the lead still needs one of firstName, lastName, fullName, email, phone, companyName.
 */
export function patchedValues(lead: Lead, patch: LeadPatch): LeadValues {
  const v2 = leadToV2(lead).systemFields;
  const sf = patch.systemFields ?? {};
  const fields = JSON.parse(lead.fields) as Record<string, unknown>;
  const put = (member: string, value: string | null) => {
    if (value === null) delete fields[member];
    else fields[member] = value;
  };
  for (const [name, member] of Object.entries(STORED_AS)) {
    if (name === 'fullName') continue;
    const value = sf[name as keyof typeof sf] as string | null | undefined;
    if (value !== undefined) put(member, value);
  }
  if (sf.twitterUrl !== undefined) {
    const fullContact = { ...((fields.fullContact ?? {}) as Record<string, unknown>) };
    if (sf.twitterUrl === null) delete fullContact.twitter;
    else fullContact.twitter = sf.twitterUrl;
    if (Object.keys(fullContact).length === 0) delete fields.fullContact;
    else fields.fullContact = fullContact;
  }

  // Names: the given parts kept as given (columns), the full name following their join.
  let { firstName, lastName } = lead;
  const names = sf.firstName !== undefined || sf.lastName !== undefined;
  let fullName = v2.fullName;
  if (names) {
    firstName = sf.firstName !== undefined ? sf.firstName : v2.firstName;
    lastName = sf.lastName !== undefined ? sf.lastName : v2.lastName;
    if (
      sf.fullName === undefined &&
      (v2.fullName === null || v2.fullName === joined(v2.firstName, v2.lastName))
    )
      fullName = joined(firstName, lastName);
  }
  if (sf.fullName !== undefined) fullName = sf.fullName;
  if (names || sf.fullName !== undefined) put('name', fullName);

  const location = patchLocation(v2.location, sf.location);
  if (sf.location !== undefined) put('location', location?.label ?? null);

  // Consent (docs/v2.md): coordinates are kept only while the lead shares its location.
  const consentGiven = patch.locationShared !== undefined;
  const shared = consentGiven ? patch.locationShared === true : lead.locationShared;
  const coordinates =
    sf.location !== undefined &&
    (sf.location === null || sf.location.latitude !== undefined || sf.location.longitude !== undefined);
  let { lat, long } = lead;
  if (!shared) {
    if (consentGiven || coordinates) [lat, long] = [null, null];
  } else if (coordinates) {
    const pair = location?.latitude != null && location?.longitude != null;
    [lat, long] = pair ? [String(location!.latitude), String(location!.longitude)] : [null, null];
  }

  const after: LeadValues = {
    time: lead.time,
    userPid: lead.userPid,
    kind: lead.kind,
    locationShared: shared,
    lat,
    long,
    fields: JSON.stringify(fields),
    source: lead.source,
    firstName,
    lastName,
  };
  const result = leadToV2({ ...lead, ...after }).systemFields;
  if (!CONTACT.some((f) => (result[f] ?? '').trim() !== '')) {
    throw invalidParams([
      {
        name: '/systemFields',
        reason: 'a lead needs at least one of firstName, lastName, fullName, email, phone or companyName',
      },
    ]);
  }
  return after;
}

/** The members a merge may fill in (docs/v2.md "Merge leads"): the contact, never the coordinates. */
const MERGED_MEMBERS = [
  'firstName',
  'lastName',
  'fullName',
  'email',
  'phone',
  'companyName',
  'jobTitle',
  'website',
  'linkedinUrl',
  'twitterUrl',
  'address',
  'note',
  'bio',
  'profileImageUrl',
  'businessCardImageUrl',
] as const;

const empty = (v: string | null | undefined): boolean => v === null || v === undefined || v.trim() === '';

/**
 * The patch a merge applies to the survivor: each contact member the survivor has no value for
 * (unset or blank) takes the first non-blank value among `others`, in the order given; the
 * location label likewise. Coordinates are never taken (consent is the lead's own), nor v1-only
 * members. Null when the survivor lacks nothing the others have.
 */
export function mergePatch(survivor: Lead, others: Lead[]): LeadPatch | null {
  const mine = leadToV2(survivor).systemFields;
  const theirs = others.map((o) => leadToV2(o).systemFields);
  const sf: Record<string, string> = {};
  for (const name of MERGED_MEMBERS) {
    if (!empty(mine[name])) continue;
    const found = theirs.find((t) => !empty(t[name]));
    if (found !== undefined) sf[name] = found[name]!;
  }
  const patch: LeadPatch = { systemFields: sf };
  if (empty(mine.location?.label)) {
    const label = theirs.find((t) => !empty(t.location?.label))?.location?.label;
    if (label !== undefined && label !== null) patch.systemFields!.location = { label };
  }
  return Object.keys(patch.systemFields!).length === 0 ? null : patch;
}
