import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import type { LeadFilter } from '../../src/leads/leads.port.js';
import { fold } from '../../src/leads/text.js';
import { migrate } from '../../src/storage/postgres/migrations.js';
import { PostgresStore } from '../../src/storage/postgres/store.js';
import { trigramSchema } from '../../src/storage/postgres/trigram.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, makeEngineStore, schemaUrl, testDatabaseUrl } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * Issue 20 §2: leadline stores in several schemas of one database, each URL's search_path naming
 * its own schema only (no public). pg_trgm is one per database: a store must find it wherever it
 * is. The store contract suites run on such stores too (test/support/engines.ts gives every PostgreSQL
 * store a schema of its own, alone on its path).
 */
const url = testDatabaseUrl();
const skip = url === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false;

const people = (name: string, email: string) => [
  { type: 'team', id: 1, name: 'One' },
  { type: 'member', id: 11, teamId: 1, email: 'a@one.test', role: 'admin', pid: 'p11' },
  { type: 'lead', userId: 11, id: 'only', epoch: 1000, isLead: true, name, email },
];
const search = (value: string, match: 'FUZZY' | 'EXACT'): LeadFilter => ({
  scope: { teamId: 1 },
  start: null,
  end: null,
  sources: null,
  hasEmail: null,
  text: [{ fields: ['fullName', 'lastName', 'email'], value: fold(value), match }],
});
async function found(store: Store, value: string, match: 'FUZZY' | 'EXACT'): Promise<string[]> {
  const leads = await store.leads.search(search(value, match), 'DESC', null, 10);
  return leads.map((l) => `${l.id}:${JSON.parse(l.fields).name}`);
}

describe('PostgreSQL stores in several schemas of one database', { skip }, () => {
  const stores: EngineStore[] = [];
  before(async () => {
    stores.push(await makeEngineStore('postgres'), await makeEngineStore('postgres'));
    await load(stores[0]!.store, people('Zebulon Quackenbush', 'zeb@quack.test'));
    await load(stores[1]!.store, people('Maria Jonas', 'maria@jonas.test'));
  });
  after(async () => {
    for (const s of stores) await s.cleanup();
  });

  test('each URL names its own schema only: public is not on the path', async () => {
    for (const s of stores) {
      const sql = postgres(s.location.databaseUrl!, { max: 1, onnotice: () => {} });
      const [row] = await sql<{ path: string[] }[]>`SELECT current_schemas(false) AS path`;
      await sql.end();
      assert.deepEqual(row?.path, [new URL(s.location.databaseUrl!).searchParams.get('search_path')]);
    }
  });

  test('each store has its own leads, and FUZZY and EXACT search work in both', async () => {
    const [a, b] = stores.map((s) => s.store);
    assert.deepEqual(await found(a!, 'quakenbush', 'FUZZY'), ['only:Zebulon Quackenbush']);
    assert.deepEqual(await found(a!, 'jonaz', 'FUZZY'), []);
    assert.deepEqual(await found(a!, 'zeb@quack.test', 'EXACT'), ['only:Zebulon Quackenbush']);
    assert.deepEqual(await found(b!, 'jonaz', 'FUZZY'), ['only:Maria Jonas']);
    assert.deepEqual(await found(b!, 'quakenbush', 'FUZZY'), []);
    assert.deepEqual(await found(b!, 'maria@jonas.test', 'EXACT'), ['only:Maria Jonas']);
  });
});

/** A database of its own, so where pg_trgm is (or is not) can be chosen without disturbing others. */
async function withDatabase(work: (dbUrl: string, admin: postgres.Sql) => Promise<void>): Promise<void> {
  const name = `lt_db_${randomBytes(6).toString('hex')}`;
  const server = postgres(url!, { max: 1, onnotice: () => {} });
  await server.unsafe(`CREATE DATABASE ${name} TEMPLATE template0`);
  const dbUrl = Object.assign(new URL(url!), { pathname: `/${name}` }).toString();
  const admin = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    await work(dbUrl, admin);
  } finally {
    await admin.end();
    await server.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
    await server.end();
  }
}

/** A migrated store alone in `schema` (made here), holding one lead. */
async function storeIn(dbUrl: string, admin: postgres.Sql, schema: string, name: string): Promise<Store> {
  await admin.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const store = PostgresStore.open(schemaUrl(dbUrl, schema));
  await store.migrate();
  await load(store, people(name, `${name.split(' ')[0]!.toLowerCase()}@x.test`));
  return store;
}

describe('pg_trgm wherever the database has it', { skip }, () => {
  test('absent: the first store makes it in public, not in its own schema, and a second store uses it', () =>
    withDatabase(async (dbUrl, admin) => {
      const a = await storeIn(dbUrl, admin, 'store_a', 'John Smith');
      assert.equal(await trigramSchema(admin), 'public');
      await a.close();
      // Dropping a store's schema leaves the extension (and the other stores) alone.
      await admin.unsafe('DROP SCHEMA store_a CASCADE');
      const b = await storeIn(dbUrl, admin, 'store_b', 'Maria Jonas');
      try {
        assert.deepEqual(await found(b, 'jonaz', 'FUZZY'), ['only:Maria Jonas']);
      } finally {
        await b.close();
      }
    }));

  test('in another store’s schema (as leadline left it before): both stores migrate and search', () =>
    withDatabase(async (dbUrl, admin) => {
      // The earlier migration 3 ran `CREATE EXTENSION IF NOT EXISTS pg_trgm` and named
      // `gin_trgm_ops` through the path: with the path `store_a`, both in store_a.
      await admin.unsafe('CREATE SCHEMA store_a');
      const old = postgres(schemaUrl(dbUrl, 'store_a'), { max: 1, onnotice: () => {} });
      await migrate(old, 2);
      await old.unsafe('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await old.end();
      assert.equal(await trigramSchema(admin), 'store_a');
      const a = await storeIn(dbUrl, admin, 'store_a', 'John Smith');
      const b = await storeIn(dbUrl, admin, 'store_b', 'Maria Jonas');
      const [index] = await admin<
        { def: string }[]
      >`SELECT pg_get_indexdef('store_b.leads_search'::regclass) AS def`;
      assert.match(index!.def, /store_a\.gin_trgm_ops/);
      try {
        assert.deepEqual(await found(a, 'smyth', 'FUZZY'), ['only:John Smith']);
        assert.deepEqual(await found(b, 'jonaz', 'FUZZY'), ['only:Maria Jonas']);
        assert.deepEqual(await found(b, 'maria@x.test', 'EXACT'), ['only:Maria Jonas']);
      } finally {
        await a.close();
        await b.close();
      }
      // docs/scaling.md: move it to public, restart, and both keep working.
      await admin.unsafe('ALTER EXTENSION pg_trgm SET SCHEMA public');
      for (const [schema, value] of [
        ['store_a', 'smyth'],
        ['store_b', 'jonaz'],
      ] as const) {
        const restarted = PostgresStore.open(schemaUrl(dbUrl, schema));
        try {
          assert.deepEqual((await restarted.migrate()).applied, []);
          assert.equal((await found(restarted, value, 'FUZZY')).length, 1, schema);
        } finally {
          await restarted.close();
        }
      }
    }));
});
