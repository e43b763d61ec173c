import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import type { Lead } from '../../src/leads/lead.js';
import { leadToV1Json } from '../../src/leads/v1-wire.js';
import { leadToV2 } from '../../src/leads/v2-wire.js';
import { V2Lead } from '../../src/schemas/v2.js';

const checkV2 = Compile(V2Lead);

/** A scan lead carrying every v1 member there is. */
const everything = {
  name: 'Ana María Ruiz',
  company: 'ACME',
  jobTitle: 'CTO',
  email: 'ana@acme.test',
  number: '4930123456',
  address: 'Main St 1',
  website: 'https://acme.test',
  linkedIn: 'https://linkedin.test/ana',
  fullContact: { twitter: 'https://x.test/ana', linkedin: 'https://linkedin.test/ana-2' },
  image: 'ana.png',
  card: 'card-1.jpg',
  note: 'met at fair',
  bio: 'builds things',
  location: 'Berlin, BE',
  isManual: false,
  isScan: true,
  isRoll: true,
  noService: true,
  attachments: [{ file: 'a.pdf' }],
  crm: { hubspot: { id: 7 } },
  url: 'https://profile.test/ana',
  views: '12',
  pops: '3',
  pro: '1',
  mode: '2',
  v: '5',
  hash: 'abc1',
  isLoggedIn: '',
};

function lead(over: Partial<Lead> = {}): Lead {
  return {
    seq: 1,
    id: 'ana@acme.test',
    epoch: 1_719_835_200_123,
    time: '2024-07-01 14:00:00',
    userId: 1011,
    userEmail: 'owner@spree.test',
    userPid: '7011',
    kind: 'scan',
    locationShared: true,
    lat: '52.5200',
    long: '13.4050',
    fields: JSON.stringify(everything),
    uuid: '01900000-0000-7000-8000-000000000001',
    source: 'BUSINESS_CARD_SCAN',
    createdAt: 1_719_835_300_000,
    firstName: null,
    lastName: null,
    ...over,
  };
}

/** The v1 lead rebuilt from a v2 lead by the documented table (docs/v2.md), written out by hand. */
function backToV1(v2: ReturnType<typeof leadToV2>): Record<string, unknown> {
  const s = v2.systemFields;
  const out: Record<string, unknown> = {
    id: v2.legacyLeadId,
    epoch: Date.parse(v2.captureDatetime),
    userId: v2.assignedMembers[0],
    userPid: s.userPid,
    ...v2.v1Fields,
  };
  const put = (k: string, v: unknown) => {
    if (v !== null) out[k] = v;
  };
  put('name', s.fullName);
  put('company', s.companyName);
  put('jobTitle', s.jobTitle);
  put('email', s.email);
  put('number', s.phone);
  put('address', s.address);
  put('website', s.website);
  put('linkedIn', s.linkedinUrl);
  put('image', s.profileImageUrl);
  put('card', s.businessCardImageUrl);
  put('note', s.note);
  put('bio', s.bio);
  put('location', s.location?.label ?? null);
  return out; // lat and long: their v1 text is in v1Fields (with consent)
}

describe('v2 lead shape', () => {
  it('loses no v1 member: the v1 lead comes back from the v2 one', () => {
    const l = lead();
    const v2 = leadToV2(l);
    assert.ok(checkV2.Check(v2), JSON.stringify([...checkV2.Errors(v2)]));
    assert.deepEqual(backToV1(v2), JSON.parse(leadToV1Json(l)));
  });

  it('names the parts of the contact, source, times and collector', () => {
    const v2 = leadToV2(lead());
    assert.equal(v2.leadId, '01900000-0000-7000-8000-000000000001');
    assert.equal(v2.leadSource, 'BUSINESS_CARD_SCAN');
    assert.equal(v2.captureDatetime, '2024-07-01T12:00:00.123Z');
    assert.equal(v2.createdAt, '2024-07-01T12:01:40.000Z');
    assert.deepEqual(v2.assignedMembers, [1011]);
    assert.equal(v2.systemFields.firstName, 'Ana');
    assert.equal(v2.systemFields.lastName, 'María Ruiz');
    assert.equal(v2.systemFields.twitterUrl, 'https://x.test/ana');
    assert.deepEqual(v2.systemFields.location, { label: 'Berlin, BE', latitude: 52.52, longitude: 13.405 });
    assert.equal(v2.v1Fields.userEmail, 'owner@spree.test');
    assert.deepEqual([v2.v1Fields.lat, v2.v1Fields.long], ['52.5200', '13.4050']);
  });

  it('prefers names given at creation over the split of the full name', () => {
    const v2 = leadToV2(lead({ firstName: 'Ana María', lastName: 'Ruiz' }));
    assert.equal(v2.systemFields.firstName, 'Ana María');
    assert.equal(v2.systemFields.lastName, 'Ruiz');
  });

  it('never shows coordinates without consent, even when stored', () => {
    const v2 = leadToV2(lead({ locationShared: false }));
    assert.deepEqual(v2.systemFields.location, { label: 'Berlin, BE', latitude: null, longitude: null });
    assert.doesNotMatch(JSON.stringify(v2), /52\.52|13\.40/);
    assert.ok(!('lat' in v2.v1Fields) && !('long' in v2.v1Fields));
  });

  it('gives null for every unset value', () => {
    const v2 = leadToV2(
      lead({
        fields: JSON.stringify({ isLead: true, apptoapp: false, isManual: false }),
        lat: null,
        long: null,
      }),
    );
    assert.ok(checkV2.Check(v2));
    for (const k of [
      'firstName',
      'lastName',
      'fullName',
      'email',
      'phone',
      'companyName',
      'twitterUrl',
      'location',
    ] as const) {
      assert.equal(v2.systemFields[k], null, k);
    }
  });
});
