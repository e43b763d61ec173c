import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Lead } from '../../src/leads/lead.js';
import { lastLeadBody, leadToV1Json } from '../../src/leads/v1-wire.js';

const lead: Lead = {
  seq: 1,
  id: '1001',
  epoch: 1767225600000,
  time: '2026-01-01 01:00:00',
  userId: 4822,
  userEmail: 'ana@acme.test',
  userPid: '7891',
  kind: 'connection',
  locationShared: false,
  lat: '52.52',
  long: '13.40',
  fields: '{"isLead":true,"apptoapp":false,"isManual":false,"name":"Zoë \\"Z\\" Ruiz","crm":{}}',
  uuid: '019b7a2e-4c00-7000-8000-000000000001',
  source: 'PROFILE_CONNECTION',
  createdAt: 1767225600000,
  firstName: null,
  lastName: null,
};

describe('leadToV1Json (C1)', () => {
  test('always-present members and the verbatim fields, as valid JSON', () => {
    assert.deepEqual(JSON.parse(leadToV1Json(lead)), {
      id: '1001',
      epoch: 1767225600000,
      time: '2026-01-01 01:00:00',
      userId: 4822,
      userEmail: 'ana@acme.test',
      userPid: '7891',
      isLead: true,
      apptoapp: false,
      isManual: false,
      name: 'Zoë "Z" Ruiz',
      crm: {},
    });
  });

  test('lat/long only with consent, and only those stored', () => {
    assert.ok(!('lat' in JSON.parse(leadToV1Json(lead))));
    const shared = JSON.parse(leadToV1Json({ ...lead, locationShared: true }));
    assert.equal(shared.lat, '52.52');
    assert.equal(shared.long, '13.40');
    const onlyLat = JSON.parse(leadToV1Json({ ...lead, locationShared: true, long: null }));
    assert.equal(onlyLat.lat, '52.52');
    assert.ok(!('long' in onlyLat));
  });

  test('identity members are escaped', () => {
    const odd = { ...lead, id: 'a"b\\c\u2028\n', userEmail: '"@x', userPid: '\u0000', time: '</script>' };
    const parsed = JSON.parse(leadToV1Json(odd));
    assert.equal(parsed.id, odd.id);
    assert.equal(parsed.userEmail, odd.userEmail);
    assert.equal(parsed.userPid, odd.userPid);
  });

  test('a lead with no other members is still one object', () => {
    assert.deepEqual(Object.keys(JSON.parse(leadToV1Json({ ...lead, fields: '{}' }))), [
      'id',
      'epoch',
      'time',
      'userId',
      'userEmail',
      'userPid',
    ]);
  });

  test('lastLeadBody: [] without a lead, [lead] with one', () => {
    assert.equal(lastLeadBody(null), '[]');
    assert.equal(JSON.parse(lastLeadBody(lead)).length, 1);
  });
});
