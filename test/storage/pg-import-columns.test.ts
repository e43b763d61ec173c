import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import postgres from 'postgres';
import { type EngineStore, makeEngineStore, testDatabaseUrl } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * A PostgreSQL import sends each batch's columns as one text per column that the server splits
 * at a control character (U+001F between values, U+001E for NULL; storage/postgres/import.ts `column`).
 * Values holding those characters, NULLs, and a column that is a single empty string must arrive
 * exactly as an array literal would have brought them.
 */
const skip = testDatabaseUrl() === null ? 'needs LEADLINE_TEST_DATABASE_URL (required under CI=true)' : false;

interface Row {
  lead_id: string;
  user_pid: string | null;
  lat: string | null;
  first_name: string | null;
  last_name: string | null;
  text_fields: string[];
  search: string;
  name: string | null;
}

describe('PostgreSQL import: batch columns arrive as they were', { skip }, () => {
  let s: EngineStore;
  let sql: postgres.Sql;
  before(async () => {
    s = await makeEngineStore('postgres');
    sql = postgres(s.location.databaseUrl!, { max: 1, onnotice: () => {} });
    await load(s.store, [
      { type: 'team', id: 1, name: 'One' },
      { type: 'member', id: 11, teamId: 1, email: 'a@one.test', role: 'admin', pid: 'p11' },
    ]);
  });
  after(async () => {
    await sql.end();
    await s.cleanup();
  });

  const stored = (ids: string[]) =>
    sql<Row[]>`SELECT lead_id, user_pid, lat, first_name, last_name, text_fields, search,
      fields::json->>'name' AS name FROM leads WHERE lead_id = ANY(${ids}) ORDER BY seq`;

  test('values holding the separators, beside plain ones and NULLs, in one batch', async () => {
    await load(s.store, [
      {
        type: 'lead',
        userId: 11,
        id: 'sep\u001fid',
        epoch: 1,
        isLead: true,
        name: 'Ann\u001eLee Smith',
        company: 'X\u001fY',
        userPid: 'pid\u001e',
        lat: '12.5',
        long: '-3.25',
      },
      { type: 'lead', userId: 11, id: 'plain', epoch: 2, isScan: true, name: 'Bo' },
    ]);
    const [a, b, ...more] = await stored(['sep\u001fid', 'plain']);
    assert.ok(a !== undefined && b !== undefined && more.length === 0);
    assert.equal(a.lead_id, 'sep\u001fid');
    assert.equal(a.user_pid, 'pid\u001e');
    assert.equal(a.lat, '12.5');
    assert.equal(a.name, 'Ann\u001eLee Smith');
    // An import gives no first and last name apart (NULL in every row).
    assert.equal(a.first_name, null);
    assert.ok(a.text_fields.includes('x\u001fy'), JSON.stringify(a.text_fields));
    assert.ok(a.text_fields.includes('ann\u001elee smith'), JSON.stringify(a.text_fields));
    assert.ok(a.search.includes('x\u001fy'));
    assert.equal(b.lead_id, 'plain');
    assert.equal(b.user_pid, 'p11');
    assert.equal(b.lat, null);
    assert.equal(b.last_name, null);
    assert.equal(b.text_fields.length, 7);
    assert.ok(b.text_fields.includes('bo'), JSON.stringify(b.text_fields));
  });

  test('a batch of one lead whose text columns are empty strings', async () => {
    await load(s.store, [{ type: 'lead', userId: 11, id: 'bare', epoch: 3, isLead: true, userPid: '' }]);
    const [row] = await stored(['bare']);
    assert.ok(row !== undefined);
    assert.equal(row.user_pid, '');
    assert.deepEqual(row.text_fields, ['', '', '', '', '', '', '']);
    assert.equal(row.search, '      ');
    assert.equal(row.first_name, null);
    assert.equal(row.name, null);
  });
});
