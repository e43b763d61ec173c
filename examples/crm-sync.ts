/**
 * A CRM integrator's starting point: keep a local mirror of every lead an API key may see,
 * current through leadline's change feed, and resumable after a crash.
 *
 *   LEADLINE_URL=http://127.0.0.1:3000 LEADLINE_KEY=<key> MIRROR=mirror.db \
 *     node --import tsx examples/crm-sync.ts
 *
 * The mirror is an SQLite file: a `leads` table keyed by `lead_id`, and the feed's cursor in
 * `sync_state`. Each page of the feed is written in one transaction together with the cursor
 * after it, so a crash at any moment leaves the mirror and its cursor in step: a restart goes
 * on from the last page written, and a page seen twice replaces rows, never duplicates them.
 * It follows the feed until SIGINT or SIGTERM: once caught up, each call waits on the server up to
 * WAIT_SECONDS (long-poll `wait=`, default 25; at most the server's LEADLINE_FEED_MAX_WAIT_SECONDS)
 * and answers as soon as a lead is stored, so a new lead is mirrored at once without polling on a
 * timer. Point a CRM import, a spreadsheet export or a report at the mirror.
 */

import {
  createLeadline,
  type ErasedEntry,
  type Lead,
  LeadlineError,
  type MergedEntry,
} from '@leadline/client';
import Database from 'better-sqlite3';

/** A setup problem: one line that says what to fix, exit 1, no stack trace. */
function fail(message: string): never {
  console.error(`crm-sync: ${message}`);
  process.exit(1);
}

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] || fallback;
  if (value === undefined) fail(`${name} is required (see the comment at the top of this file)`);
  return value;
};

// The key is checked before anything is written: a missing or refused key leaves no mirror file.
const leadline = createLeadline({ baseUrl: env('LEADLINE_URL'), apiKey: env('LEADLINE_KEY') });
try {
  await leadline.me();
} catch (err) {
  if (err instanceof LeadlineError && (err.status === 401 || err.status === 403)) {
    fail(`LEADLINE_KEY was refused: ${err.problem?.detail ?? `status ${err.status}`}`);
  }
  fail(`cannot reach leadline at ${env('LEADLINE_URL')}: ${(err as Error).message}`);
}

const db = new Database(env('MIRROR', 'mirror.db'));
db.pragma('journal_mode = WAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS leads (
    lead_id TEXT PRIMARY KEY,
    legacy_lead_id TEXT NOT NULL,
    captured_at TEXT NOT NULL,
    full_name TEXT,
    email TEXT,
    company TEXT,
    lead JSON NOT NULL
  );
  CREATE TABLE IF NOT EXISTS sync_state (id INTEGER PRIMARY KEY CHECK (id = 1), cursor TEXT NOT NULL);
`);
const upsert =
  db.prepare(`INSERT INTO leads VALUES (@leadId, @legacyLeadId, @captured, @name, @email, @company, @json)
  ON CONFLICT (lead_id) DO UPDATE SET legacy_lead_id = excluded.legacy_lead_id,
    captured_at = excluded.captured_at, full_name = excluded.full_name, email = excluded.email,
    company = excluded.company, lead = excluded.lead`);
const saveCursor = db.prepare(
  'INSERT INTO sync_state (id, cursor) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET cursor = excluded.cursor',
);
const savedCursor =
  (db.prepare('SELECT cursor FROM sync_state WHERE id = 1').pluck().get() as string | undefined) ?? null;

const remove = db.prepare('DELETE FROM leads WHERE lead_id = ?');

/**
 * One page: its leads and the cursor after them, all or nothing. A merged lead is deleted, and
 * so is an erased one — the person asked for every copy to go (docs/privacy.md "Erasure").
 */
const writePage = db.transaction((leads: (Lead | MergedEntry | ErasedEntry)[], cursor: string) => {
  for (const lead of leads) {
    if ('mergedInto' in lead || 'erased' in lead) {
      remove.run(lead.leadId);
      continue;
    }
    upsert.run({
      leadId: lead.leadId,
      legacyLeadId: lead.legacyLeadId,
      captured: lead.captureDatetime,
      name: lead.systemFields.fullName,
      email: lead.systemFields.email,
      company: lead.systemFields.companyName,
      json: JSON.stringify(lead),
    });
  }
  saveCursor.run(cursor);
});

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

console.log(
  `crm-sync: ${savedCursor === null ? 'from the beginning of the feed' : 'resuming from the saved cursor'}`,
);
try {
  const wait = Number(env('WAIT_SECONDS', '25'));
  for await (const page of leadline.leads.changes({
    cursor: savedCursor,
    limit: 500,
    follow: true,
    wait,
    signal: stop.signal,
  })) {
    writePage(page.leads, page.cursor);
    console.log(`crm-sync: ${page.leads.length} ${page.leads.length === 1 ? 'lead' : 'leads'} mirrored`);
  }
} catch (err) {
  if (!stop.signal.aborted) throw err;
} finally {
  db.close();
}
