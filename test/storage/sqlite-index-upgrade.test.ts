import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ImportWriter } from '../../src/import/import.port.js';
import type { LeadFilter, TextClause } from '../../src/leads/leads.port.js';
import { SqliteImportWriter } from '../../src/storage/sqlite/import.js';
import { LATEST_VERSION, migrate } from '../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../src/storage/sqlite/store.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';
import { at, M, SUBTEAM, searchRecords, TEAM } from '../v2/search-fixture.js';

/**
 * Issue 20 §3: lead_text becomes a contentless FTS5 table (migration 4). A store as leadline
 * left it before (migrations 1–3, the index holding its own copy of the text, written by the
 * import writer — whose statements are the same before and after) is upgraded in place and
 * then answers every FUZZY/EXACT search as a store made new does, on each engine under test.
 */
const FIRST = ['John', 'Jon', 'Johanna', 'Zoë', 'Renée', 'Łukasz', 'Mark', 'Micheal', 'Ana', 'Anna'];
const LAST = ['Smith', 'Smyth', 'García', 'Garcia', "O'Brien", 'Nguyen', 'Müller'];
const COMPANY = ['ACME Corp', 'Acme Widgets', 'Initech', 'Globex', 'Hooli', 'Müller & Söhne'];
const TITLE = ['Engineer', 'Senior Engineer', 'Sales Manager', 'CTO', ''];
const NOTE = ['a.b', 'a b', 'met at the booth', 'call back, re: pricing', ''];

/** The fixture's leads, generated ones, and (second import) two of them replaced. */
function records(): object[] {
  const members = [M.admin, M.subAdmin, M.mia, M.max];
  const generated = Array.from({ length: 140 }, (_, i) => ({
    type: 'lead',
    userId: members[i % members.length],
    id: `g${i}`,
    epoch: at(10 + (i % 37)),
    isLead: true,
    name: `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`,
    company: COMPANY[i % COMPANY.length],
    jobTitle: TITLE[i % TITLE.length],
    note: NOTE[i % NOTE.length],
    ...(i % 3 === 0 ? {} : { email: `${FIRST[i % FIRST.length]!.toLowerCase()}.${i}@example.test` }),
  }));
  return [...searchRecords(), ...generated];
}
const replaced = (id: string, name: string): object => ({
  type: 'lead',
  userId: M.mia,
  id,
  epoch: at(10),
  isLead: true,
  name,
  company: 'Zephyr Labs',
});
const REPLACEMENTS = [replaced('g2', 'Quentin Blake')];

const clause = (match: TextClause['match'], fields: TextClause['fields'], value: string): TextClause => ({
  match,
  fields,
  value,
});
const QUERIES: { scope?: LeadFilter['scope']; text: TextClause[] }[] = [
  ...['jonh', 'smyth', 'garcia', 'mueller', 'micheal', 'quentin', 'zoe', 'anna'].map((v) => ({
    text: [clause('FUZZY', ['fullName'], v)],
  })),
  { text: [clause('FUZZY', ['lastName'], 'obrien')] },
  { text: [clause('FUZZY', ['email'], 'acme')] },
  { text: [clause('FUZZY', ['companyName'], 'initek')] },
  { text: [clause('FUZZY', ['note', 'jobTitle'], 'enginer booth')] },
  { text: [clause('FUZZY', ['firstName', 'lastName', 'email', 'companyName', 'note'], 'jon smith')] },
  { text: [clause('FUZZY', ['companyName'], 'zephyr')] },
  { text: [clause('EXACT', ['fullName'], 'john smith')] },
  { text: [clause('EXACT', ['fullName'], 'jose garcia')] },
  { text: [clause('EXACT', ['email'], 'mj@initech.test')] },
  { text: [clause('EXACT', ['companyName'], 'acme corp')] },
  { text: [clause('EXACT', ['note'], 'a.b')] },
  { text: [clause('EXACT', ['note'], 'a b')] },
  { text: [clause('EXACT', ['firstName'], 'zoe')] },
  { text: [clause('EXACT', ['jobTitle', 'note'], '')] },
  { text: [clause('EXACT', ['fullName'], 'quentin blake')] },
  { text: [clause('EXACT', ['fullName'], 'renee smyth')] },
  { text: [clause('FUZZY', ['fullName'], 'jon'), clause('EXACT', ['companyName'], 'acme corp')] },
  { scope: { teamId: TEAM, subteams: [SUBTEAM] }, text: [clause('FUZZY', ['fullName'], 'smith')] },
];

async function answers(store: Store): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) {
    const filter: LeadFilter = {
      scope: q.scope ?? { teamId: TEAM },
      start: null,
      end: null,
      sources: null,
      hasEmail: null,
      text: q.text,
    };
    const page = await store.leads.search(filter, 'DESC', null, 1000);
    out.push(page.map((l) => `${l.userId}/${l.id}`));
  }
  return out;
}

/** A store at schema version 3, loaded as leadline loaded it then. */
async function storeAtVersion3(path: string): Promise<void> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  migrate(db, 3);
  // Today's writer also asks whether a team takes webhook events (migration 5); on a version-3
  // file none does. Empty temporary stand-ins answer that, and vanish with this connection.
  db.exec(`CREATE TEMP TABLE webhook_endpoints (team_id INTEGER, enabled INTEGER, event_types TEXT);
    CREATE TEMP TABLE webhook_events (id TEXT, team_id INTEGER, type TEXT, lead_seq INTEGER, created_at INTEGER,
      data TEXT)`);
  // It also writes each lead's feed position and reads a replaced lead's version (migration 10):
  // columns and a clock lent for the import and taken back after, so the file is version 3's.
  const LENT = [
    'pos INTEGER',
    'version INTEGER NOT NULL DEFAULT 1',
    'merged_into TEXT',
    'changed_via TEXT',
    'changed_at INTEGER',
    // migration 12: an import leaves an erased lead's tombstone alone
    'erased_at INTEGER',
  ];
  for (const column of LENT) db.exec(`ALTER TABLE leads ADD COLUMN ${column}`);
  db.exec(
    'CREATE TEMP TABLE feed_clock (id INTEGER PRIMARY KEY, pos INTEGER NOT NULL); INSERT INTO temp.feed_clock VALUES (1, 0)',
  );
  // importRecords asks the store for its suppressions (none: this store predates erasure) and an
  // import transaction; give it the writer on this file.
  const old = {
    erasures: { suppressions: async () => [] },
    importAtomically: async <T>(work: (w: ImportWriter) => Promise<T>): Promise<T> => {
      db.exec('BEGIN IMMEDIATE');
      const result = await work(new SqliteImportWriter(db));
      db.exec('COMMIT');
      return result;
    },
  } as unknown as Store;
  await load(old, records());
  await load(old, REPLACEMENTS);
  for (const column of LENT) db.exec(`ALTER TABLE leads DROP COLUMN ${column.split(' ')[0]}`);
  const row = db.prepare('SELECT full_name FROM lead_text WHERE full_name IS NOT NULL LIMIT 1').get();
  assert.ok(row !== undefined, 'the version-3 index holds its own copy of the text');
  db.close();
}

describe('SQLite: the search index of a store made before migration 4', () => {
  let dir: string;
  let upgraded: SqliteStore;
  const references: { engine: string; made: EngineStore }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-index-upgrade-'));
    await storeAtVersion3(join(dir, 'old.db'));
    for (const engine of enginesUnderTest()) {
      const made = await makeEngineStore(engine);
      await load(made.store, records());
      await load(made.store, REPLACEMENTS);
      references.push({ engine, made });
    }
  });
  after(async () => {
    await upgraded?.close();
    for (const r of references) await r.made.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('is rebuilt contentless in place by `migrate`', async () => {
    upgraded = SqliteStore.open(join(dir, 'old.db'));
    const report = await upgraded.migrate();
    // Every later migration follows; 4 is the one under test here.
    assert.deepEqual(
      [report.from, report.to, report.applied[0]],
      [3, LATEST_VERSION, '4-contentless-lead-text'],
    );
    const db = new Database(join(dir, 'old.db'), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'lead_text%'").pluck().all();
    assert.ok(!tables.includes('lead_text_content'), `no copy of the text: ${tables.join(', ')}`);
    const indexed = db.prepare('SELECT count(*) FROM lead_text').pluck().get();
    const leads = db.prepare('SELECT count(*) FROM leads').pluck().get();
    assert.equal(indexed, leads, 'every lead indexed once');
    db.close();
  });

  test('answers every FUZZY and EXACT search as a store made new does, on each engine', async () => {
    const got = await answers(upgraded);
    // Not vacuous: the queries find leads, replaced ones by their new text only.
    assert.ok(got.filter((a) => a.length > 0).length >= QUERIES.length - 2);
    assert.deepEqual(got[QUERIES.findIndex((q) => q.text[0]!.value === 'quentin blake')], [`${M.mia}/g2`]);
    assert.deepEqual(got[QUERIES.findIndex((q) => q.text[0]!.value === 'mj@initech.test')], [`${M.max}/a3`]);
    for (const r of references) assert.deepEqual(got, await answers(r.made.store), `same as ${r.engine}`);
  });

  test('keeps the index right when an upgraded store replaces a lead', async () => {
    await load(upgraded, [replaced('g2', 'Yolanda Vex'), replaced('g7', 'Quentin Blake')]);
    const find = async (match: TextClause['match'], value: string): Promise<string[]> =>
      (
        await upgraded.leads.search(
          {
            scope: { teamId: TEAM },
            start: null,
            end: null,
            sources: null,
            hasEmail: null,
            text: [clause(match, ['fullName'], value)],
          },
          'DESC',
          null,
          100,
        )
      ).map((l) => l.id);
    assert.deepEqual(await find('FUZZY', 'yolanda'), ['g2']);
    assert.deepEqual(await find('EXACT', 'quentin blake'), ['g7']);
    const db = new Database(join(dir, 'old.db'), { readonly: true });
    // The index's own view: each lead's row matches its current text only.
    const hits = db
      .prepare(
        `SELECT rowid FROM lead_text WHERE lead_text MATCH '{full_name} : ("que" AND "ent" AND "tin")'`,
      )
      .pluck()
      .all();
    const seq = db.prepare("SELECT seq FROM leads WHERE lead_id = 'g7'").pluck().get();
    assert.deepEqual(hits, [seq]);
    db.close();
  });
});
