import type { Member, Team } from '../directory/directory.js';
import type { CreateBody } from '../schemas/v2.js';
import { invalidParams } from '../shared/errors.js';
import { captureTimeTooLate, parseInstant } from '../shared/instant.js';
import type { LeadKind, LeadSource } from './lead.js';
import type { NewLead } from './leads.port.js';
import { searchable } from './text.js';
import { timeLabel } from './time-label.js';

/**
 * A v2 creation body → the lead to store, written as the v1 members it has there so v1 reads
 * see it exactly like an imported lead (the inverse of the mapping in v2-wire.ts).
 *
 * Which v1 kind a source is: a business-card scan is a scan (`isScan`, `isRoll: false`);
 * every other source is a connection (`isLead`), `apptoapp` for APP_TO_APP, `isManual` for MANUAL.
 */
export function kindOf(source: LeadSource): LeadKind {
  return source === 'BUSINESS_CARD_SCAN' ? 'scan' : 'connection';
}

const CONTACT = ['firstName', 'lastName', 'fullName', 'email', 'phone', 'companyName'] as const;

/** `captureToleranceMs`: how far ahead of `now` a capture time may lie (device clock skew). */
export function newLeadFrom(
  body: CreateBody,
  member: Member,
  team: Team,
  now: number,
  captureToleranceMs: number,
): NewLead {
  const sf = body.systemFields;
  const given = (v: string | null | undefined): string | null => (v === undefined || v === null ? null : v);
  if (!CONTACT.some((f) => (given(sf[f]) ?? '').trim() !== '')) {
    throw invalidParams([
      {
        name: '/systemFields',
        reason: 'a lead needs at least one of firstName, lastName, fullName, email, phone or companyName',
      },
    ]);
  }
  const userPid = body.userPid ?? member.pid;
  if (userPid === null) {
    throw invalidParams([{ name: '/userPid', reason: 'required: the member has no default profile id' }]);
  }
  const epoch = body.captureDatetime === undefined ? now : (parseInstant(body.captureDatetime) ?? Number.NaN);
  if (!Number.isFinite(epoch) || epoch < 0) {
    throw invalidParams([{ name: '/captureDatetime', reason: 'not a valid date from 1970 on' }]);
  }
  const tooLate = captureTimeTooLate(epoch, now, captureToleranceMs);
  if (tooLate !== null) throw invalidParams([{ name: '/captureDatetime', reason: tooLate }]);

  const firstName = given(sf.firstName);
  const lastName = given(sf.lastName);
  const joined = [firstName, lastName].filter((p) => p !== null && p !== '').join(' ');
  const kind = kindOf(body.leadSource);
  const fields: Record<string, unknown> = {};
  const put = (name: string, v: string | null | undefined) => {
    const value = given(v);
    if (value !== null) fields[name] = value;
  };
  put('name', given(sf.fullName) ?? (joined === '' ? null : joined));
  put('company', sf.companyName);
  put('jobTitle', sf.jobTitle);
  put('email', sf.email);
  put('number', sf.phone);
  put('address', sf.address);
  put('website', sf.website);
  put('linkedIn', sf.linkedinUrl);
  const twitter = given(sf.twitterUrl);
  if (twitter !== null) fields.fullContact = { twitter };
  put('image', sf.profileImageUrl);
  put('card', sf.businessCardImageUrl);
  put('note', sf.note);
  put('bio', sf.bio);
  put('location', sf.location?.label);
  fields.isManual = body.leadSource === 'MANUAL';
  if (kind === 'connection') {
    fields.isLead = true;
    fields.apptoapp = body.leadSource === 'APP_TO_APP';
  } else {
    fields.isScan = true;
    fields.isRoll = false;
  }

  // Coordinates are kept only with the lead's consent, and only as a pair.
  const shared = body.locationShared === true;
  const lat = sf.location?.latitude ?? null;
  const long = sf.location?.longitude ?? null;
  const keep = shared && lat !== null && long !== null;
  return {
    teamId: member.teamId,
    memberId: member.id,
    id: null,
    epoch,
    time: timeLabel(epoch, team.timeZone),
    userPid,
    kind,
    locationShared: shared,
    lat: keep ? String(lat) : null,
    long: keep ? String(long) : null,
    fields: JSON.stringify(fields),
    source: body.leadSource,
    firstName,
    lastName,
    ...searchable(fields, { firstName, lastName }),
  };
}
