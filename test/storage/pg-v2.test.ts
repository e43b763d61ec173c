import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { base, de, en, es, Faker, fr } from '@faker-js/faker';
import postgres from 'postgres';
import type { Lead } from '../../src/leads/lead.js';
import type { LeadFilter, NewLead } from '../../src/leads/leads.port.js';
import { FUZZY_THRESHOLD, fold, leadText, wordSimilarity } from '../../src/leads/text.js';
import { migrate } from '../../src/storage/postgres/migrations.js';
import { searchQuery } from '../../src/storage/postgres/search.js';
import type { PostgresStore } from '../../src/storage/postgres/store.js';
import { quoteIdent, trigramSchema } from '../../src/storage/postgres/trigram.js';
import { type EngineStore, makeEngineStore, schemaUrl, testDatabaseUrl } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { newLeadOf } from './new-lead.js';

/**
 * What only PostgreSQL has to prove about v2: that pg_trgm answers as lead-text.ts says, that
 * the change feed never skips a lead whose transaction commits late, and that FUZZY search is
 * an index search. The engine-neutral behaviour is in v2-store-contract.test.ts.
 */
const faker = new Faker({ locale: [de, es, fr, en, base], seed: 20_261_121 });
const people = [
  { type: 'team', id: 1, name: 'One' },
  { type: 'team', id: 2, name: 'Two' },
  { type: 'member', id: 11, teamId: 1, email: 'a@one.test', role: 'admin', pid: 'p11' },
  { type: 'member', id: 12, teamId: 1, email: 'b@one.test', pid: 'p12' },
  { type: 'member', id: 21, teamId: 2, email: 'a@two.test', role: 'admin', pid: 'p21' },
];

/** One typo: a letter dropped, doubled, replaced, or two swapped. */
function typo(word: string): string {
  if (word.length < 2) return word;
  const i = faker.number.int({ min: 0, max: word.length - 2 });
  switch (faker.number.int({ min: 0, max: 3 })) {
    case 0:
      return word.slice(0, i) + word.slice(i + 1);
    case 1:
      return word.slice(0, i + 1) + word.slice(i);
    case 2:
      return word.slice(0, i) + faker.string.alpha({ length: 1, casing: 'lower' }) + word.slice(i + 1);
    default:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  }
}

/** (value, field) pairs of the kinds v2 FUZZY search meets, folded as the service folds them. */
function similarityPairs(): [string, string][] {
  const pairs: [string, string][] = [
    ['jonh', 'john'],
    ['smyth', 'smith'],
    ['micheal', 'michael'],
    ['mike', 'mark'],
    ['jose', 'jose maria garcia-lopez'],
    ['muller', 'hans muller'],
    ['søren', 'søren kierkegaard'],
    ['łukasz', 'lukasz nowak'],
    ['straße', 'hauptstraße 5'],
    ['acme', 'ana.lopez@acme.test'],
    ['ana lopez', 'ana.lopez@acme.test'],
    ['a', 'a b a'],
    ['ab', 'abababab'],
    ['x1', 'x1 x2 x1x2'],
    ['', 'anything'],
    ['word', ''],
    ['same same', 'same'],
  ];
  for (let i = 0; i < 300; i++) {
    const first = faker.person.firstName();
    const last = faker.person.lastName();
    const full = `${first} ${last}`;
    const email = faker.internet.email({ firstName: first, lastName: last });
    const company = faker.company.name();
    const candidates: [string, string][] = [
      [typo(last), last],
      [typo(first), full],
      [typo(full), full],
      [`${typo(first)} ${typo(last)}`, `${full} ${faker.person.jobTitle()}`],
      [last, email],
      [typo(company.split(' ')[0] ?? company), company],
      [faker.person.lastName(), full],
      [faker.word.sample(), faker.lorem.sentence()],
    ];
    pairs.push(candidates[i % candidates.length]!);
  }
  return pairs.map(([v, f]) => [fold(v), fold(f)]);
}

describe('PostgreSQL v2', {
  skip: testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false,
}, () => {
  let made: EngineStore;
  let store: PostgresStore;
  /** A plain connection to the store's schema, for what a test does behind the store's back. */
  let raw: postgres.Sql;
  before(async () => {
    made = await makeEngineStore('postgres');
    store = made.store as PostgresStore;
    raw = postgres(made.location.databaseUrl!, { max: 4, onnotice: () => {} });
    await load(store, people);
  });
  after(async () => {
    await raw.end();
    await made.cleanup();
  });

  test('wordSimilarity (lead-text.ts) is pg_trgm word_similarity', async () => {
    const pairs = similarityPairs();
    const trgm = quoteIdent((await trigramSchema(raw))!);
    const rows = (await raw.unsafe(
      `SELECT ${trgm}.word_similarity(v, f) AS s FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(v, f, i)
        ORDER BY i`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    )) as unknown as { s: number }[];
    assert.equal(rows.length, pairs.length);
    let near = 0;
    pairs.forEach(([value, field], i) => {
      const js = wordSimilarity(value, field);
      assert.ok(
        Math.abs(js - rows[i]!.s) < 1e-6,
        `word_similarity(${JSON.stringify(value)}, ${JSON.stringify(field)}): pg_trgm ${rows[i]!.s}, JS ${js}`,
      );
      if (Math.abs(js - FUZZY_THRESHOLD) < 0.15) near++;
    });
    assert.ok(near > 30, `enough pairs near the threshold to mean something (${near})`);
  });

  test('change feed: a lead committed late is held back, then delivered, nothing skipped', async () => {
    const scope = { teamId: 1 };
    const seen: Lead[] = [];
    let at: string | null = null;
    const drain = async () => {
      for (;;) {
        const page = await store.leads.changes(scope, at, 2);
        assert.ok(page.leads.length <= 2);
        seen.push(...page.leads);
        at = page.next;
        if (page.leads.length < 2) return;
      }
    };
    await load(store, [lead(11, 'before-1', 1000), lead(12, 'before-2', 2000)]);
    await drain();

    // A: a transaction that has its txid before B is stored, and stores its lead after B.
    const a = await raw.reserve();
    let committed = false;
    try {
      await a`BEGIN`;
      await a`SELECT pg_current_xact_id()`;
      const b = await store.leads.create(newLead(11, 'B'), null);
      assert.equal(b.kind, 'created');
      await a`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          fields, uuid, created_at)
        VALUES (1, 12, 'A', 5000, 't', 'p12', 'connection', false, '{}', gen_random_uuid(), 0)`;
      const [order] = await a<{ a: boolean }[]>`SELECT
          (SELECT seq FROM leads WHERE lead_id = 'A') > (SELECT seq FROM leads WHERE lead_id = 'B') AS a`;
      assert.ok(order?.a, 'A holds the higher seq: seq order alone would put it after B');

      await drain();
      const held = seen.map((l) => l.id);
      assert.ok(!held.includes('B'), 'B waits while A, begun before it, is still open');
      assert.ok(!held.includes('A'));
      const heldAt = at;
      const again = await store.leads.changes(scope, heldAt, 10);
      assert.equal(again.next, heldAt, 'an empty page stays where it was');

      await a`COMMIT`;
      committed = true;
    } finally {
      if (!committed) await a`ROLLBACK`;
      a.release();
    }
    // Other test processes share the server, and their open transactions hold the feed as well.
    const deadline = Date.now() + 30_000;
    while (!seen.some((l) => l.id === 'B') && Date.now() < deadline) {
      await drain();
      if (!seen.some((l) => l.id === 'B')) await new Promise((r) => setTimeout(r, 50));
    }
    const ids = seen.map((l) => l.id);
    assert.ok(ids.includes('A') && ids.includes('B'), `A and B delivered: ${ids.join(', ')}`);
    assert.ok(ids.indexOf('A') < ids.indexOf('B'), 'A began first: it comes first');
    assert.equal(new Set(ids).size, ids.length, 'nothing delivered twice');
    const stored = await raw<
      { lead_id: string }[]
    >`SELECT lead_id FROM leads WHERE team_id = 1 ORDER BY lead_id`;
    assert.deepEqual(
      [...ids].sort(),
      stored.map((r) => r.lead_id),
      'every lead of the team, none skipped',
    );
    assert.ok(
      seen.every((l) => l.userEmail.endsWith('@one.test')),
      "only the team's leads",
    );
  });

  test('FUZZY search: a trigram index search, the same leads as word similarity says', async () => {
    const records: {
      type: string;
      userId: number;
      id: string;
      epoch: number;
      name: string;
      email: string;
    }[] = [];
    for (let i = 0; i < 4000; i++) {
      const first = faker.person.firstName();
      const last = faker.person.lastName();
      records.push({
        ...lead(i % 2 === 0 ? 11 : 12, `bulk-${i}`, 1_700_000_000_000 + i * 1000),
        name: `${first} ${last}`,
        email: faker.internet.email({ firstName: first, lastName: last }),
      });
    }
    records.push({ ...lead(11, 'target', 1_750_000_000_000), name: 'Zebulon Quackenbush', email: '' });
    await load(store, records, 'bulk.ndjson');
    // VACUUM as autovacuum would: fresh GIN entries wait in the index's pending list, which the
    // planner prices as a full scan until it is merged.
    await raw`VACUUM ANALYZE leads`;

    const filter: LeadFilter = {
      scope: { teamId: 1 },
      start: null,
      end: null,
      sources: null,
      hasEmail: null,
      text: [{ fields: ['lastName', 'fullName'], value: fold('Quakenbush'), match: 'FUZZY' }],
    };
    const query = searchQuery(filter, 'DESC', null, 100, quoteIdent((await trigramSchema(raw))!));
    const plan = await raw.unsafe(`EXPLAIN ${query.text}`, query.params as never[]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(text, /leads_search/, `the plan uses the trigram index:\n${text}`);

    // The index only narrows: what comes back is exactly what word similarity says, field by field.
    for (const typed of ['Quakenbush', 'Schmit', 'Muler', 'Hofman']) {
      const value = fold(typed);
      const found = await store.leads.search(
        { ...filter, text: [{ ...filter.text[0]!, value }] },
        'DESC',
        null,
        1000,
      );
      const expected = records
        .filter((r) => {
          const t = leadText({ name: r.name, email: r.email }, { firstName: null, lastName: null });
          return [t[1]!, t[2]!].some((f) => wordSimilarity(value, f) >= FUZZY_THRESHOLD);
        })
        .map((r) => r.id);
      assert.ok(expected.length > 0, typed);
      assert.deepEqual(found.map((l) => l.id).sort(), expected.sort(), typed);
    }
  });

  test('migration 3 fills the searchable text of the leads stored before it', async () => {
    const url = testDatabaseUrl()!;
    const schema = `lt_${randomBytes(6).toString('hex')}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    const sql = postgres(schemaUrl(url, schema), {
      max: 1,
      onnotice: () => {},
    });
    try {
      assert.deepEqual((await migrate(sql, 2)).applied, ['1-core', '2-rate-limits']);
      await sql`INSERT INTO teams (id, name) VALUES (1, 'One')`;
      await sql`INSERT INTO members (id, team_id, email, role) VALUES (11, 1, 'a@one.test', 'admin')`;
      const fields = [
        { name: 'José  García López', email: 'Jose@Example.test', company: 'Ñandú SA', isManual: true },
        { name: 'Solo', note: 'met at the fair' },
      ];
      for (const [i, f] of fields.entries()) {
        await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
            fields, uuid, created_at)
          VALUES (1, 11, ${`old-${i}`}, ${i}, 't', 'p', 'connection', false, ${JSON.stringify(f)},
            gen_random_uuid(), 0)`;
      }
      assert.deepEqual((await migrate(sql, 3)).applied, ['3-v2']);
      const rows = await sql<
        { text_fields: string[]; search: string; has_email: boolean; source: string; txid: number }[]
      >`SELECT text_fields, search, has_email, source, txid FROM leads ORDER BY lead_id`;
      const texts = fields.map((f) => leadText(f, { firstName: null, lastName: null }));
      assert.deepEqual(
        rows.map((r) => r.text_fields),
        texts,
      );
      assert.deepEqual(
        rows.map((r) => r.search),
        texts.map((t) => t.join(' ')),
      );
      assert.deepEqual(
        rows.map((r) => [r.has_email, r.source]),
        [
          [true, 'MANUAL'],
          [false, 'PROFILE_CONNECTION'],
        ],
      );
      assert.deepEqual(
        rows.map((r) => Number(r.txid)),
        [0, 0],
        'leads from before the feed existed come first in it',
      );
    } finally {
      await sql.end();
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});

function lead(userId: number, id: string, epoch: number) {
  return { type: 'lead', userId, id, epoch, isLead: true };
}

function newLead(memberId: number, id: string): NewLead {
  const fields = { name: `Lead ${id}` };
  return newLeadOf({
    teamId: 1,
    memberId,
    id,
    epoch: 4000,
    time: 't',
    fields,
    source: 'QR_CODE_SCAN',
    firstName: null,
    lastName: null,
  });
}
