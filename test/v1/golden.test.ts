import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { enginesUnderTest } from '../support/engines.js';
import { B, type Fixture, type Rec, W } from './fixtures.js';
import { v1Harness } from './harness.js';
import { call, type OpName, V1 } from './http-assert.js';

/**
 * Golden v1 bodies (C1, C4): the exact bytes of all five operations over a small fixed fixture.
 * The files are kept formatted (the linter formats JSON); the service's bytes must equal their
 * compact form exactly — member order, escaping, number form and all. `UPDATE_GOLDEN=1` rewrites
 * them from the current output; check any rewrite against the contract by eye before committing.
 * Every engine must answer the same bytes: only the first engine under test rewrites the files,
 * the others are still compared with them.
 */
const GOLDEN_RECORDS: Rec[] = [
  { type: 'team', id: 501, name: 'Golden GmbH', timeZone: 'Europe/Berlin' },
  { type: 'member', id: 5011, teamId: 501, email: 'gold.admin@golden.test', role: 'admin', pid: 'g-5011' },
  { type: 'member', id: 5012, teamId: 501, email: 'gold.member@golden.test', pid: 'g-5012' },
  { type: 'member', id: 5013, teamId: 501, email: 'gold.other@golden.test', pid: 'g-5013' },
  { type: 'subteam', id: 5021, teamId: 501, name: 'Gold field', members: [5012], admins: [5011] },
  {
    type: 'lead',
    userId: 5012,
    id: 'jane@example.test',
    epoch: B - 86_400_000,
    time: 'Jun 30, 2024 2:00 PM',
    locationShared: true,
    lat: '52.5200',
    long: '13.4050',
    isLead: true,
    apptoapp: true,
    name: 'Jane “Goldie” Müller',
    company: 'Acme <Ltd> & Co',
    email: 'jane@example.test',
    number: '4930123456',
    fullContact: { twitter: 'https://twitter.com/jane' },
    attachments: [{ name: 'card.pdf' }],
    crm: { sf: { id: '001', stage: 'new' } },
    views: '5',
    v: '1',
    isLoggedIn: '',
  },
  {
    type: 'lead',
    userId: 5012,
    id: '+491701234567',
    epoch: W,
    locationShared: false,
    lat: '48.1374',
    long: '11.5755',
    isScan: true,
    card: 'scan-1.jpg',
    note: '',
    noService: true,
  },
  {
    type: 'lead',
    userId: 5013,
    id: '9001',
    epoch: B,
    time: 'other',
    isScan: true,
    isRoll: true,
    name: 'Tie 1',
  },
  { type: 'lead', userId: 5012, id: '9002', epoch: B, isLead: true, isManual: true, name: 'Tie 2\nline' },
];

const CALLS: [OpName, string, number][] = [
  ['getLastLead', '', 5012],
  ['getLastLeadTeam', '', 5011],
  ['getLastLeadSubTeam', '?subTeamId=5021', 5011],
  ['getLeadsTimeRange', '?start=0', 5012],
  ['getLeadsTimeRangeForTeam', '?start=0', 5011],
];

const goldenFile = (op: OpName) => new URL(`./golden/${op}.json`, import.meta.url);

const ENGINES = enginesUnderTest();

for (const engine of ENGINES) {
  describe(`golden v1 bodies: byte for byte (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    v1Harness(engine, (h) => ({ fx, app } = h), GOLDEN_RECORDS);

    for (const [op, query, memberId] of CALLS) {
      test(`C1/C4: ${op}${query} answers the golden bytes`, async () => {
        const res = await call(app, `${V1}${op}${query}`, fx.key(memberId));
        assert.equal(res.statusCode, 200);
        if (process.env.UPDATE_GOLDEN === '1' && engine === ENGINES[0]) {
          writeFileSync(goldenFile(op), `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`);
        }
        const golden = readFileSync(goldenFile(op), 'utf8');
        assert.equal(res.body, JSON.stringify(JSON.parse(golden)));
      });
    }
  });
}
