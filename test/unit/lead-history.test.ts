import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredLead } from '../../src/leads/lead.js';
import { valuesOf } from '../../src/leads/lead-change.js';
import { historyOf, leadsByEmail, normalisedEmail } from '../../src/leads/lead-history.js';
import type { LeadEvent } from '../../src/leads/leads.port.js';

/** docs/console.md, "Lead page": the search's e-mail, and a history without values. */

const lead: StoredLead = {
  seq: 7,
  id: 'v1-7',
  epoch: 1_719_792_000_000,
  time: '2024-07-01 00:00:00',
  userId: 1,
  userEmail: 'rep@team.test',
  userPid: 'p1',
  kind: 'connection',
  locationShared: false,
  lat: null,
  long: null,
  fields: JSON.stringify({ name: 'Ann Lee', email: 'ann@x.test', company: 'Secret Co' }),
  uuid: '0190b3a2-0000-7000-8000-000000000007',
  source: 'PROFILE_CONNECTION',
  createdAt: 1_719_792_000_000,
  firstName: null,
  lastName: null,
  version: 3,
  mergedInto: null,
  changedVia: 'api',
  erased: false,
};

const event = (e: Partial<LeadEvent>): LeadEvent => ({
  type: 'lead.updated',
  leadId: lead.uuid,
  at: 1,
  source: null,
  before: null,
  after: null,
  mergedInto: null,
  version: null,
  ...e,
});

describe('lead history', () => {
  it('normalises an e-mail: trimmed, without case; nothing left is no search', async () => {
    assert.equal(normalisedEmail('  Ann.Lee@Example.COM \t'), 'ann.lee@example.com');
    assert.equal(normalisedEmail('   '), null);
    const asked: string[] = [];
    const leads = {
      byEmail: async (_team: number | null, email: string) => {
        asked.push(email);
        return [];
      },
    };
    await leadsByEmail(leads, 1, ' ');
    await leadsByEmail(leads, 1, ' ANN@x.test ');
    assert.deepEqual(asked, ['ann@x.test'], 'an empty e-mail asks the store nothing');
  });

  it('lists only the leads whose e-mail is the same address by the erasure rule: accents count', async () => {
    const withEmail = (seq: number, email: string): StoredLead => ({
      ...lead,
      seq,
      fields: JSON.stringify({ email }),
    });
    const leads = {
      // The folded index finds both: `müller` and `muller` fold to one key.
      byEmail: async () => [withEmail(1, ' Muller@X.test'), withEmail(2, 'müller@x.test')],
    };
    const found = await leadsByEmail(leads, 1, 'MULLER@x.test ');
    assert.deepEqual(
      found.map((l) => l.seq),
      [1],
      'the accented address is another person’s, as for an erasure',
    );
  });

  it('names the changed fields, never a value; tells merges apart', () => {
    const before = valuesOf(lead);
    const after = {
      ...before,
      fields: JSON.stringify({ name: 'Ann Lee', email: 'ann@x.test', company: 'Other Co' }),
    };
    const other = '0190b3a2-0000-7000-8000-000000000009';
    const entries = historyOf({
      lead,
      changedAt: 3,
      merged: [],
      events: [
        event({ type: 'lead.created', at: 1, version: 1 }),
        event({ at: 2, source: 'api', before, after, version: 2 }),
        event({
          type: 'lead.merged',
          leadId: other,
          at: 3,
          source: 'cli',
          mergedInto: lead.uuid,
          version: 2,
        }),
        event({ type: 'lead.merged', at: 4, source: 'cli', mergedInto: other, version: 3 }),
      ],
    });
    assert.deepEqual(
      entries.map((e) => [e.kind, e.version, e.source, e.changedFields]),
      [
        ['created', 1, null, []],
        ['updated', 2, 'api', ['systemFields.companyName']],
        // Another lead's merge does not change this one's version.
        ['merged-into-this', null, 'cli', []],
        ['merged-away', 3, 'cli', []],
      ],
    );
    assert.equal(entries[3]!.mergedInto, other);
    const text = JSON.stringify(entries);
    assert.ok(!text.includes('Secret Co') && !text.includes('Other Co'), 'no value in a history entry');
  });
});
