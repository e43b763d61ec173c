import Database from 'better-sqlite3';

/** Fills the store fast, straight through SQL: this test is about reading, not importing. */
export function bulkInsertLeads(path: string, memberId: number, count: number): void {
  const db = new Database(path);
  const fields = JSON.stringify({
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
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO leads (seq, team_id, member_id, lead_id, epoch, time, user_pid, kind, location_shared,
      lat, long, fields, uuid, created_at)
    SELECT 1000 + i, 1, ?, 'lead-' || i, 1700000000000 + i * 1000, '2023-11-14 22:13:20', '77', 'connection', 0,
      '52.52', '13.40', ?, lower(hex(randomblob(16))), 0 FROM n`).run(count, memberId, fields);
  db.close();
}
