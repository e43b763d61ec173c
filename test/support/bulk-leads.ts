import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { StoreLocation } from '../../src/open-store.js';

const FIELDS = JSON.stringify({
  isLead: true,
  apptoapp: false,
  isManual: false,
  name: 'Ana María Ruiz Fernández',
  company: 'Acme Industrial Solutions GmbH',
  jobTitle: 'Head of Procurement',
  email: 'ana.ruiz@acme-industrial.test',
  number: '4930123456789',
  address: 'Friedrichstraße 123, 10117 Berlin, Germany',
  note: 'Met at the fair, interested in the enterprise plan; follow up in two weeks.',
  crm: { stage: 'new', owner: 'team-a' },
});

/** Leads a PostgreSQL statement inserts: about a second each on this machine. */
const PG_BATCH = 20_000;

/**
 * Fills a store fast, straight through SQL (team 1, the given member): tests using it are about
 * reading, not importing. Lead `lead-i` has epoch 1700000000000 + i·1000, i = 1…count.
 */
export async function bulkInsertLeads(
  location: StoreLocation,
  memberId: number,
  count: number,
): Promise<void> {
  if (location.databaseUrl === null) {
    const db = new Database(location.dbPath);
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO leads (seq, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
        lat, long, fields, uuid, created_at)
      SELECT 1000 + i, 1, ?, 'lead-' || i, 1700000000000 + i * 1000, '2023-11-14 22:13:20', '77', 'connection', 0,
        '52.52', '13.40', ?, lower(hex(randomblob(16))), 0 FROM n`).run(count, memberId, FIELDS);
    db.close();
    return;
  }
  const sql = postgres(location.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    // In batches, each its own transaction: the database is shared by the tests running beside
    // this one, and PostgreSQL's feeds show only transactions older than the oldest one still
    // running — a 300,000-lead insert in one statement held them back for 20 s and more.
    for (let from = 1; from <= count; from += PG_BATCH) {
      const to = Math.min(count, from + PG_BATCH - 1);
      await sql`INSERT INTO leads (team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
          lat, long, fields, uuid, created_at)
        SELECT 1, ${memberId}, 'lead-' || i, 1700000000000 + i * 1000, '2023-11-14 22:13:20', '77', 'connection', false,
          '52.52', '13.40', ${FIELDS}, gen_random_uuid(), 0 FROM generate_series(${from}::int, ${to}::int) AS i`;
    }
    await sql`ANALYZE leads`;
  } finally {
    await sql.end();
  }
}
