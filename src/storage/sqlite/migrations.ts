// Longer than the ~250 lines most files keep to: every schema migration in order, forward only;
// one list is the record of how a store file changed.
import type Database from 'better-sqlite3';
import type { MigrationReport } from '../../store.js';
import { MigrationError } from '../../store.js';
import { backfillLeadText } from './lead-writes.js';

/**
 * Versioned schema of the embedded store. Append only: a released migration never changes.
 * Indexes lead with the team (as the PostgreSQL schema will), and make every v1 operation an
 * index walk: (team, member, epoch, seq) for a member's leads, (team, epoch, seq) for a team's.
 */
interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL cannot do (text folding), run in the same transaction after `sql`. */
  after?: (db: Database.Database) => void;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
      CREATE TABLE teams (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        time_zone TEXT NOT NULL DEFAULT 'UTC'
      );
      CREATE TABLE members (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id) DEFERRABLE INITIALLY DEFERRED,
        email TEXT NOT NULL UNIQUE,
        name TEXT,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        pid TEXT
      );
      CREATE INDEX members_team ON members(team_id, id);
      CREATE TABLE subteams (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id) DEFERRABLE INITIALLY DEFERRED,
        name TEXT NOT NULL
      );
      CREATE INDEX subteams_team ON subteams(team_id, id);
      CREATE TABLE subteam_members (
        team_id INTEGER NOT NULL,
        subteam_id INTEGER NOT NULL REFERENCES subteams(id) ON DELETE CASCADE,
        member_id INTEGER NOT NULL REFERENCES members(id) DEFERRABLE INITIALLY DEFERRED,
        is_member INTEGER NOT NULL,
        is_admin INTEGER NOT NULL,
        PRIMARY KEY (team_id, subteam_id, member_id)
      ) WITHOUT ROWID;
      CREATE INDEX subteam_members_subteam ON subteam_members(subteam_id);
      CREATE TABLE leads (
        seq INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL,
        member_id INTEGER NOT NULL REFERENCES members(id) DEFERRABLE INITIALLY DEFERRED,
        lead_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        time TEXT NOT NULL,
        user_pid TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('connection', 'scan')),
        location_shared INTEGER NOT NULL,
        lat TEXT,
        long TEXT,
        fields TEXT NOT NULL,
        uuid TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX leads_identity ON leads(team_id, member_id, lead_id, epoch);
      CREATE INDEX leads_member_epoch ON leads(team_id, member_id, epoch, seq);
      CREATE INDEX leads_team_epoch ON leads(team_id, epoch, seq);
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY,
        member_id INTEGER NOT NULL REFERENCES members(id),
        display TEXT NOT NULL,
        hash BLOB NOT NULL UNIQUE,
        label TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        legacy_v1 INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX api_keys_display ON api_keys(display);
      CREATE INDEX api_keys_member ON api_keys(member_id);
    `,
  },
  {
    version: 2,
    name: 'v2',
    // v2 search, change feed and creation. lead_text is an FTS5 trigram index over the folded
    // searchable fields (src/leads/text.ts); its rowid is the lead's seq. (Contentless from 4.)
    sql: `
      ALTER TABLE leads ADD COLUMN source TEXT NOT NULL DEFAULT 'PROFILE_CONNECTION'
        CHECK (source IN ('APP_TO_APP', 'PROFILE_CONNECTION', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN', 'MANUAL'));
      UPDATE leads SET source = CASE
        WHEN kind = 'scan' THEN 'BUSINESS_CARD_SCAN'
        WHEN json_extract(fields, '$.isManual') = 1 THEN 'MANUAL'
        WHEN json_extract(fields, '$.apptoapp') = 1 THEN 'APP_TO_APP'
        ELSE 'PROFILE_CONNECTION' END;
      ALTER TABLE leads ADD COLUMN has_email INTEGER NOT NULL DEFAULT 0;
      UPDATE leads SET has_email = coalesce(json_extract(fields, '$.email'), '') <> '';
      ALTER TABLE leads ADD COLUMN first_name TEXT;
      ALTER TABLE leads ADD COLUMN last_name TEXT;
      CREATE INDEX leads_team_seq ON leads(team_id, seq);
      CREATE VIRTUAL TABLE lead_text USING fts5(
        first_name, last_name, full_name, email, company_name, job_title, note, tokenize = 'trigram');
      CREATE TABLE idempotency_keys (
        key_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        lead_uuid TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (key_id, key)
      ) WITHOUT ROWID;
      CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
    `,
    after: backfillLeadText,
  },
  {
    version: 3,
    name: 'retirement',
    // Brownout windows (key_ids: JSON array, NULL for every key) and the usage ledger: one row
    // per key, API version, operation, UTC day and status, added to by every flush.
    sql: `
      CREATE TABLE brownouts (
        id INTEGER PRIMARY KEY,
        starts_at INTEGER NOT NULL,
        ends_at INTEGER NOT NULL,
        key_ids TEXT,
        created_at INTEGER NOT NULL,
        CHECK (ends_at > starts_at)
      );
      CREATE TABLE api_usage (
        key_id INTEGER NOT NULL,
        api TEXT NOT NULL CHECK (api IN ('v1', 'v2')),
        operation TEXT NOT NULL,
        day TEXT NOT NULL,
        status INTEGER NOT NULL,
        count INTEGER NOT NULL,
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        user_agent TEXT,
        PRIMARY KEY (key_id, api, operation, day, status)
      ) WITHOUT ROWID;
      CREATE INDEX api_usage_day ON api_usage(day);
    `,
  },
  {
    version: 4,
    name: 'contentless-lead-text',
    // lead_text made a store twice the size of its leads (bench/RESULTS.md): it kept a copy of
    // the text and each trigram's positions. Searches only ask it which leads have which trigrams
    // in which fields, and check each candidate against the lead's own text (search.ts):
    // contentless (the text is re-derived from `leads`), detail=column (no positions).
    // contentless_delete: a replaced lead's row goes by rowid, without its old text. Rebuilt from
    // `leads`; the old table's pages stay free in the file until a VACUUM (docs/scaling.md).
    sql: `
      DROP TABLE lead_text;
      CREATE VIRTUAL TABLE lead_text USING fts5(
        first_name, last_name, full_name, email, company_name, job_title, note, tokenize = 'trigram',
        content = '', contentless_delete = 1, detail = column);
    `,
    after: backfillLeadText,
  },
  {
    version: 5,
    name: 'webhooks',
    // Webhooks (docs/webhooks.md): a team's webhook endpoints, and the outbox. A `lead.created` event is written in
    // the transaction that stores its lead, and only while the team has an enabled endpoint for
    // the type (a team without webhooks pays nothing). Lists (event types, member and subteam
    // filters) are JSON arrays. `secret`: the signing secret, sealed when the operator configures
    // a key; `previous_secret` signs too until `previous_secret_until` (rotation). An event
    // waits (dispatched_at NULL) until delivery turns it into one attempt series per endpoint.
    sql: `
      CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        url TEXT NOT NULL,
        description TEXT,
        event_types TEXT NOT NULL,
        member_ids TEXT,
        subteam_ids TEXT,
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT,
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_until INTEGER,
        failing_since INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX webhook_endpoints_team ON webhook_endpoints(team_id, created_at);
      CREATE TABLE webhook_events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        team_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        lead_seq INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        dispatched_at INTEGER
      );
      CREATE INDEX webhook_events_team ON webhook_events(team_id, seq);
      CREATE INDEX webhook_events_waiting ON webhook_events(seq) WHERE dispatched_at IS NULL;
    `,
  },
  {
    version: 6,
    name: 'webhook-deliveries',
    // docs/webhooks.md "Delivery": an event dispatched to an endpoint is a delivery (its body rendered once,
    // so every attempt sends the same bytes), tried until delivered, failed or dropped; every
    // attempt is a row. A pending delivery's next_attempt_at is also its claim lease.
    // A dropped delivery (kept past the retention undelivered) keeps its row without its body and
    // attempts: the record that it was never delivered.
    sql: `
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        team_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT,
        created_at INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_status INTEGER,
        finished_at INTEGER,
        UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
      CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries(created_at) WHERE state IN ('pending', 'failed');
      CREATE TABLE webhook_attempts (
        id INTEGER PRIMARY KEY,
        delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempted_at INTEGER NOT NULL,
        status INTEGER,
        latency_ms INTEGER NOT NULL,
        answer TEXT NOT NULL
      );
      CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);
    `,
  },
  {
    version: 7,
    name: 'console-sessions',
    // The console (docs/console.md): the admin console's single-use sign-in links and its server-side sessions, in the
    // store so every instance honours them. Only SHA-256 hashes of their tokens are kept.
    // member_id NULL: the operator. Sessions end after an idle spell (last_seen_at) or sign-out.
    sql: `
      CREATE TABLE console_links (
        hash BLOB PRIMARY KEY,
        member_id INTEGER,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      CREATE INDEX console_links_expiry ON console_links(expires_at);
      CREATE TABLE console_sessions (
        hash BLOB PRIMARY KEY,
        member_id INTEGER,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL
      );
      CREATE INDEX console_sessions_seen ON console_sessions(last_seen_at);
    `,
  },
  {
    version: 8,
    name: 'webhook-deliveries-by-team',
    // docs/webhooks.md, "One team cannot hold up the others": claims take each team's oldest due deliveries (one team's backlog never stands in
    // front of another's), so pending deliveries are found by team, then due time. The index by
    // due time alone served the oldest-first claim this replaces.
    sql: `
      CREATE INDEX webhook_deliveries_team_due ON webhook_deliveries(team_id, next_attempt_at)
        WHERE state = 'pending';
      DROP INDEX webhook_deliveries_due;
    `,
  },
  {
    version: 9,
    name: 'webhook-endpoint-creator',
    // docs/webhooks.md, "Who created an endpoint": who created an endpoint — 'api' (the member and the key that called) or 'cli'
    // (the operator). No foreign keys: the endpoint outlives its creator's key and membership,
    // and reads say whether they still hold. Endpoints made before this migration: NULL, unknown.
    sql: `
      ALTER TABLE webhook_endpoints ADD COLUMN created_via TEXT CHECK (created_via IN ('api', 'cli'));
      ALTER TABLE webhook_endpoints ADD COLUMN created_by_member INTEGER;
      ALTER TABLE webhook_endpoints ADD COLUMN created_by_key INTEGER;
    `,
  },
  {
    version: 10,
    name: 'lead-changes',
    // Leads that change (docs/v2.md "Lead changes", issue 39). The change feed becomes a feed of
    // changes: `pos` is a lead's place in it, moved to the end by every change; positions come
    // from the one-row feed_clock (creates, changes and imports all draw from it, under the write
    // lock, so position order is commit order). Leads stored before keep their seq as position,
    // so a feed cursor issued before goes on where it was. `version` (1 when stored) counts
    // changes; `merged_into` is the survivor's uuid once merged; `changed_via`/`changed_at` the
    // last change. The feed walks (team_id, pos), which replaces (team_id, seq): the feed was its
    // only reader. An outbox event carries its change (`data`, JSON); an endpoint may ask for
    // the previous values in `lead.updated` (`include_previous`).
    sql: `
      ALTER TABLE leads ADD COLUMN pos INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE leads ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE leads ADD COLUMN merged_into TEXT;
      ALTER TABLE leads ADD COLUMN changed_via TEXT CHECK (changed_via IN ('api', 'import', 'console', 'cli'));
      ALTER TABLE leads ADD COLUMN changed_at INTEGER;
      UPDATE leads SET pos = seq;
      CREATE INDEX leads_team_pos ON leads(team_id, pos);
      DROP INDEX leads_team_seq;
      CREATE TABLE feed_clock (id INTEGER PRIMARY KEY CHECK (id = 1), pos INTEGER NOT NULL);
      INSERT INTO feed_clock (id, pos) SELECT 1, coalesce(max(seq), 0) FROM leads;
      ALTER TABLE webhook_endpoints ADD COLUMN include_previous INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_events ADD COLUMN data TEXT;
    `,
  },
  {
    version: 11,
    name: 'webhook-events-by-lead',
    // Subject access (docs/privacy.md "Subject access"): the webhook events about given leads,
    // found by the lead rather than by a walk of the team's outbox.
    sql: `
      CREATE INDEX webhook_events_lead ON webhook_events(team_id, lead_seq);
    `,
  },
  {
    version: 12,
    name: 'erasure',
    // docs/privacy.md "Erasure" (issue 40). An erased lead keeps its row as a tombstone (every
    // personal column wiped, `erased_at` set, moved to the end of the feed) so followers of the
    // feed learn to delete it; every read that leaves merged leads out leaves erased ones out too.
    // leads_merged_into finds the leads merged into an erased one; webhook_events_lead (migration 11)
    // a lead's events (both erased with it). `erasures`: the receipts (the e-mail only as a keyed hash);
    // `suppressions`: erased e-mails refused from then on (team_id NULL: every team).
    // FTS5's secure-delete: a deleted lead_text row leaves no trigram behind in the index's pages.
    sql: `
      ALTER TABLE leads ADD COLUMN erased_at INTEGER;
      ALTER TABLE leads ADD COLUMN erasure_id TEXT;
      CREATE INDEX leads_merged_into ON leads(merged_into) WHERE merged_into IS NOT NULL;
      CREATE TABLE erasures (
        id TEXT PRIMARY KEY,
        team_id INTEGER,
        requested_via TEXT NOT NULL CHECK (requested_via IN ('key', 'operator')),
        requested_by_key INTEGER,
        requested_by_member INTEGER,
        requested_at INTEGER NOT NULL,
        email_hash TEXT,
        lead_ids INTEGER NOT NULL,
        counts TEXT NOT NULL
      );
      CREATE INDEX erasures_requested ON erasures(requested_at);
      CREATE TABLE suppressions (
        team_id INTEGER,
        email_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        erasure_id TEXT
      );
      CREATE UNIQUE INDEX suppressions_key ON suppressions(coalesce(team_id, -1), email_hash);
      INSERT INTO lead_text (lead_text, rank) VALUES ('secure-delete', 1);
    `,
  },
  {
    version: 13,
    name: 'audit-log',
    // The audit log (docs/privacy.md "Audit log", issue 40): append-only — leadline has no
    // statement that updates or deletes a row of it. Ids increase (AUTOINCREMENT: never reused,
    // even after the newest row went in a restore), the cursor of newest-first pages; the index
    // serves a team's pages. `details`: JSON of ids and counts, never a personal value.
    sql: `
      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        team_id INTEGER,
        actor_via TEXT NOT NULL CHECK (actor_via IN ('key', 'console', 'operator', 'server')),
        actor_key INTEGER,
        actor_member INTEGER,
        action TEXT NOT NULL,
        details TEXT NOT NULL
      );
      CREATE INDEX audit_log_team ON audit_log(team_id, id);
    `,
  },
  {
    version: 14,
    name: 'retention',
    // docs/privacy.md "Retention" (issue 40 item 6). One policy per team: leads whose last change
    // (their capture time when never changed) is more than `days` old are erased on a schedule.
    // `lease_owner`/`lease_until`: the run that holds the team now (two instances never erase the
    // same team at once); `last_run_at`/`last_erased`: the last finished run. Receipts may now be
    // requested by a retention policy ('retention', with its `retention_days`) or by a team admin
    // in the console ('console', with the member): SQLite cannot
    // widen a CHECK in place, so `erasures` is rebuilt with its rows (a small table).
    sql: `
      CREATE TABLE retention_policies (
        team_id INTEGER PRIMARY KEY,
        days INTEGER NOT NULL CHECK (days >= 1),
        basis TEXT NOT NULL DEFAULT 'last-change',
        set_at INTEGER NOT NULL,
        last_run_at INTEGER,
        last_erased INTEGER,
        lease_owner TEXT,
        lease_until INTEGER
      );
      CREATE TABLE erasures_14 (
        id TEXT PRIMARY KEY,
        team_id INTEGER,
        requested_via TEXT NOT NULL CHECK (requested_via IN ('key', 'operator', 'retention', 'console')),
        requested_by_key INTEGER,
        requested_by_member INTEGER,
        requested_at INTEGER NOT NULL,
        email_hash TEXT,
        lead_ids INTEGER NOT NULL,
        counts TEXT NOT NULL,
        retention_days INTEGER
      );
      INSERT INTO erasures_14 (id, team_id, requested_via, requested_by_key, requested_by_member,
          requested_at, email_hash, lead_ids, counts)
        SELECT id, team_id, requested_via, requested_by_key, requested_by_member, requested_at,
          email_hash, lead_ids, counts FROM erasures;
      DROP TABLE erasures;
      ALTER TABLE erasures_14 RENAME TO erasures;
      CREATE INDEX erasures_requested ON erasures(requested_at);
    `,
  },
  {
    version: 15,
    name: 'v1-notices',
    // docs/webhooks.md "v1.usage" (issue 42): one row per team and UTC day whose v1 calls a
    // `v1.usage` notice was written for, in the transaction that writes its deliveries — the
    // primary key is the claim: however many instances try, one notice per team and day.
    sql: `
      CREATE TABLE v1_notices (
        team_id INTEGER NOT NULL,
        day TEXT NOT NULL,
        event_id TEXT NOT NULL,
        deliveries INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (team_id, day)
      );
    `,
  },
  {
    version: 16,
    name: 'feed-notify',
    // PostgreSQL's migration 16 adds the triggers that announce new leads and events to waiting
    // feed requests (LISTEN/NOTIFY). SQLite has no notifications across connections: a waiting
    // request polls the feed clock (migration 10) instead (storage/sqlite/feed-signal.ts), so
    // nothing changes here — the version is kept so both engines count the same.
    sql: 'SELECT 1;',
  },
  {
    version: 17,
    name: 'thin-payloads',
    // docs/webhooks.md "Thin payloads" (issue 41 §4): what an endpoint's bodies carry. Every
    // endpoint stored before keeps the full bodies it was sent.
    sql: `
      ALTER TABLE webhook_endpoints ADD COLUMN payload TEXT NOT NULL DEFAULT 'full'
        CHECK (payload IN ('full', 'thin'));
    `,
  },
  {
    version: 18,
    name: 'event-log',
    // docs/v2.md "Events" (issue 41): webhook_events becomes the event log — every event, with or
    // without an endpoint, kept LEADLINE_EVENT_RETENTION_DAYS. Rebuilt because SQLite cannot drop
    // NOT NULL: team-level events (webhook.test, v1.usage) have no lead (lead_seq NULL) and keep
    // their rendered body (`body`). AUTOINCREMENT: a position is never drawn twice, even after
    // the newest events were pruned. `event_horizons`: per team, the highest position pruned — a
    // cursor behind it is answered 410, never a silent gap. `webhook_events_at`: the pruning's walk.
    sql: `
      CREATE TABLE webhook_events_18 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        team_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        lead_seq INTEGER,
        created_at INTEGER NOT NULL,
        dispatched_at INTEGER,
        data TEXT,
        body TEXT
      );
      INSERT INTO webhook_events_18 (seq, id, team_id, type, lead_seq, created_at, dispatched_at, data)
        SELECT seq, id, team_id, type, lead_seq, created_at, dispatched_at, data FROM webhook_events;
      DROP TABLE webhook_events;
      ALTER TABLE webhook_events_18 RENAME TO webhook_events;
      CREATE INDEX webhook_events_team ON webhook_events(team_id, seq);
      CREATE INDEX webhook_events_waiting ON webhook_events(seq) WHERE dispatched_at IS NULL;
      CREATE INDEX webhook_events_lead ON webhook_events(team_id, lead_seq);
      CREATE INDEX webhook_events_at ON webhook_events(created_at);
      CREATE TABLE event_horizons (
        team_id INTEGER PRIMARY KEY,
        seq INTEGER NOT NULL
      );
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Applies the migrations up to `to` (tests build a store as an older leadline left it). */
export function migrate(db: Database.Database, to = LATEST_VERSION): MigrationReport {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  const from = row.v ?? 0;
  if (from > LATEST_VERSION) {
    throw new MigrationError(
      `store schema is at version ${from}, newer than this leadline knows (${LATEST_VERSION}); upgrade leadline`,
    );
  }
  const applied: string[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of MIGRATIONS) {
    if (m.version <= from || m.version > to) continue;
    try {
      db.transaction(() => {
        db.exec(m.sql);
        m.after?.(db);
        record.run(m.version, m.name, Date.now());
      }).immediate();
    } catch (err) {
      throw new MigrationError(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
    }
    applied.push(`${m.version}-${m.name}`);
  }
  return { from, to: Math.max(from, to), applied };
}
