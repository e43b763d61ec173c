// Longer than the ~250 lines most files keep to: every schema migration in order, forward only;
// one list is the record of how a database changed.
import type { Sql, TransactionSql } from 'postgres';
import { hasEmail, leadText } from '../../leads/text.js';
import type { MigrationReport } from '../../store.js';
import { MigrationError } from '../../store.js';
import { searchText, textColumns } from './text.js';
import { ensureTrigram } from './trigram.js';

interface Migration {
  version: number;
  name: string;
  /** A function when the SQL names pg_trgm's objects: `trgm` is the extension's schema, quoted. */
  sql: string | ((on: { trgm: string }) => string);
  /** Work SQL cannot do (text folding), run in the same transaction after `sql`. */
  after?: (tx: TransactionSql) => Promise<void>;
}

const BACKFILL_BATCH = 1000;

/** Searchable text of the leads stored before migration 3, folded as lead-text.ts folds it. */
async function backfillLeadText(tx: TransactionSql): Promise<void> {
  let afterTeam = -1;
  let afterSeq = -1;
  for (;;) {
    const rows = await tx<
      { team_id: number; seq: number; fields: string; first_name: string | null; last_name: string | null }[]
    >`SELECT team_id, seq, fields, first_name, last_name FROM leads
      WHERE (team_id, seq) > (${afterTeam}, ${afterSeq}) ORDER BY team_id, seq LIMIT ${BACKFILL_BATCH}`;
    if (rows.length === 0) return;
    const texts = rows.map((r) =>
      leadText(JSON.parse(r.fields), { firstName: r.first_name, lastName: r.last_name }),
    );
    const [f1, f2, f3, f4, f5, f6, f7] = textColumns(texts).map((c) => tx.array(c));
    await tx`UPDATE leads l SET text_fields = ARRAY[u.f1, u.f2, u.f3, u.f4, u.f5, u.f6, u.f7],
        search = u.search, has_email = u.has_email
      FROM unnest(${tx.array(rows.map((r) => r.team_id))}::bigint[], ${tx.array(rows.map((r) => r.seq))}::bigint[],
        ${f1!}::text[], ${f2!}::text[], ${f3!}::text[], ${f4!}::text[], ${f5!}::text[], ${f6!}::text[],
        ${f7!}::text[], ${tx.array(texts.map(searchText))}::text[], ${tx.array(texts.map(hasEmail))}::boolean[])
        AS u(team_id, seq, f1, f2, f3, f4, f5, f6, f7, search, has_email)
      WHERE l.team_id = u.team_id AND l.seq = u.seq`;
    const last = rows[rows.length - 1]!;
    afterTeam = last.team_id;
    afterSeq = last.seq;
  }
}

/**
 * Versioned schema on PostgreSQL. Append only. Laid out for a later distribution by team
 * (e.g. Citus): `leads`, the one table that grows, has a primary key and every index leading
 * with `team_id`; the small directory tables (teams, members, subteams, keys) would be
 * reference tables, replicated to every node. Columns match the SQLite schema name for name.
 */
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'core',
    sql: `
      CREATE TABLE teams (
        id bigint PRIMARY KEY,
        name text NOT NULL,
        time_zone text NOT NULL DEFAULT 'UTC'
      );
      CREATE TABLE members (
        id bigint PRIMARY KEY,
        team_id bigint NOT NULL REFERENCES teams(id) DEFERRABLE INITIALLY DEFERRED,
        email text NOT NULL UNIQUE,
        name text,
        role text NOT NULL CHECK (role IN ('admin', 'member')),
        pid text
      );
      CREATE INDEX members_team ON members(team_id, id);
      CREATE TABLE subteams (
        id bigint PRIMARY KEY,
        team_id bigint NOT NULL REFERENCES teams(id) DEFERRABLE INITIALLY DEFERRED,
        name text NOT NULL
      );
      CREATE INDEX subteams_team ON subteams(team_id, id);
      CREATE TABLE subteam_members (
        team_id bigint NOT NULL,
        subteam_id bigint NOT NULL REFERENCES subteams(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        member_id bigint NOT NULL REFERENCES members(id) DEFERRABLE INITIALLY DEFERRED,
        is_member boolean NOT NULL,
        is_admin boolean NOT NULL,
        PRIMARY KEY (team_id, subteam_id, member_id)
      );
      CREATE INDEX subteam_members_subteam ON subteam_members(subteam_id);
      CREATE SEQUENCE leads_seq;
      CREATE TABLE leads (
        team_id bigint NOT NULL,
        seq bigint NOT NULL DEFAULT nextval('leads_seq'),
        member_id bigint NOT NULL REFERENCES members(id) DEFERRABLE INITIALLY DEFERRED,
        lead_id text NOT NULL,
        epoch bigint NOT NULL,
        time text NOT NULL,
        user_pid text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('connection', 'scan')),
        location_shared boolean NOT NULL,
        lat text,
        long text,
        fields text NOT NULL,
        uuid uuid NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (team_id, seq)
      );
      ALTER SEQUENCE leads_seq OWNED BY leads.seq;
      CREATE UNIQUE INDEX leads_identity ON leads(team_id, member_id, lead_id, epoch);
      CREATE INDEX leads_member_epoch ON leads(team_id, member_id, epoch, seq);
      CREATE INDEX leads_team_epoch ON leads(team_id, epoch, seq);
      CREATE UNIQUE INDEX leads_uuid ON leads(team_id, uuid);
      CREATE TABLE api_keys (
        id bigserial PRIMARY KEY,
        member_id bigint NOT NULL REFERENCES members(id),
        display text NOT NULL,
        hash bytea NOT NULL UNIQUE,
        label text,
        created_at bigint NOT NULL,
        expires_at bigint,
        revoked_at bigint,
        legacy_v1 boolean NOT NULL DEFAULT false
      );
      CREATE INDEX api_keys_display ON api_keys(display);
      CREATE INDEX api_keys_member ON api_keys(member_id);
    `,
  },
  {
    version: 2,
    name: 'rate-limits',
    // Counters shared by instances. PostgreSQL only: one embedded store serves one process.
    // UNLOGGED: no WAL write per request; after a crash the counters start again, which is harmless.
    sql: `
      CREATE UNLOGGED TABLE rate_limits (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
    `,
  },
  {
    version: 3,
    name: 'v2',
    // v2 search, change feed and creation.
    // - txid: the transaction that stored the lead. The change feed walks (txid, seq) and only
    //   up to the oldest transaction still running, so a lead committed late is never skipped
    //   (leads_seq alone is not commit-ordered). Leads stored before this migration have 0.
    // - text_fields / search: folded searchable fields (src/leads/text.ts), one by one for
    //   rechecks and joined for the pg_trgm GIN index that finds FUZZY and EXACT candidates.
    // pg_trgm is found where it is (or made in public) and its operator class named with that
    // schema: the store's search_path need not include it (docs/scaling.md "Several stores in one database"). Stores migrated before
    // got the same index; only where a missing extension is created changed.
    sql: ({ trgm }) => `
      ALTER TABLE leads
        ADD COLUMN source text NOT NULL DEFAULT 'PROFILE_CONNECTION'
          CHECK (source IN ('APP_TO_APP', 'PROFILE_CONNECTION', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN', 'MANUAL')),
        ADD COLUMN has_email boolean NOT NULL DEFAULT false,
        ADD COLUMN first_name text,
        ADD COLUMN last_name text,
        ADD COLUMN txid bigint NOT NULL DEFAULT 0,
        ADD COLUMN text_fields text[] NOT NULL DEFAULT '{}',
        ADD COLUMN search text NOT NULL DEFAULT '';
      ALTER TABLE leads ALTER COLUMN txid SET DEFAULT (pg_current_xact_id()::text::bigint);
      UPDATE leads SET
        source = CASE
          WHEN kind = 'scan' THEN 'BUSINESS_CARD_SCAN'
          WHEN (fields::jsonb ->> 'isManual') = 'true' THEN 'MANUAL'
          WHEN (fields::jsonb ->> 'apptoapp') = 'true' THEN 'APP_TO_APP'
          ELSE 'PROFILE_CONNECTION' END,
        has_email = coalesce(fields::jsonb ->> 'email', '') <> '';
      CREATE INDEX leads_team_feed ON leads(team_id, txid, seq);
      CREATE INDEX leads_search ON leads USING gin (search ${trgm}.gin_trgm_ops);
      CREATE TABLE idempotency_keys (
        key_id bigint NOT NULL,
        key text NOT NULL,
        body_hash text NOT NULL,
        lead_uuid uuid NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (key_id, key)
      );
      CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL);
    `,
    after: backfillLeadText,
  },
  {
    version: 4,
    name: 'retirement',
    // Brownout windows (key_ids NULL: every key) and the usage ledger, one row per key, API
    // version, operation, UTC day and status, added to by every instance's flushes.
    sql: `
      CREATE TABLE brownouts (
        id bigserial PRIMARY KEY,
        starts_at bigint NOT NULL,
        ends_at bigint NOT NULL,
        key_ids bigint[],
        created_at bigint NOT NULL,
        CHECK (ends_at > starts_at)
      );
      CREATE TABLE api_usage (
        key_id bigint NOT NULL,
        api text NOT NULL CHECK (api IN ('v1', 'v2')),
        operation text NOT NULL,
        day text NOT NULL,
        status integer NOT NULL,
        count bigint NOT NULL,
        first_seen bigint NOT NULL,
        last_seen bigint NOT NULL,
        user_agent text,
        PRIMARY KEY (key_id, api, operation, day, status)
      );
      CREATE INDEX api_usage_day ON api_usage(day);
    `,
  },
  {
    version: 5,
    name: 'webhooks',
    // Webhooks (docs/webhooks.md): as SQLite's migration 5 (endpoints; the outbox, written in the transaction that
    // stores the lead while its team has an enabled endpoint for the type). Lists are JSON text,
    // as on SQLite. webhook_events is a queue, read by seq: no team_id lead on its key.
    sql: `
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        team_id bigint NOT NULL REFERENCES teams(id),
        url text NOT NULL,
        description text,
        event_types text NOT NULL,
        member_ids text,
        subteam_ids text,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until bigint,
        failing_since bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX webhook_endpoints_team ON webhook_endpoints(team_id, created_at);
      CREATE TABLE webhook_events (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        team_id bigint NOT NULL,
        type text NOT NULL,
        lead_seq bigint NOT NULL,
        created_at bigint NOT NULL,
        dispatched_at bigint
      );
      CREATE INDEX webhook_events_team ON webhook_events(team_id, seq);
      CREATE INDEX webhook_events_waiting ON webhook_events(seq) WHERE dispatched_at IS NULL;
    `,
  },
  {
    version: 6,
    name: 'webhook-deliveries',
    // As SQLite's migration 6. Instances claim due deliveries with FOR UPDATE SKIP LOCKED and
    // lease them by moving next_attempt_at (deliveries.ts).
    sql: `
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        team_id bigint NOT NULL,
        type text NOT NULL,
        payload text,
        created_at bigint NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at bigint,
        last_status integer,
        finished_at bigint,
        UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
      CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries(created_at) WHERE state IN ('pending', 'failed');
      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempted_at bigint NOT NULL,
        status integer,
        latency_ms integer NOT NULL,
        answer text NOT NULL
      );
      CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);
    `,
  },
  {
    version: 7,
    name: 'console-sessions',
    // The console (docs/console.md): as SQLite's migration 7 (console sign-in links and sessions, hashed tokens only;
    // member_id NULL: the operator), shared by every instance behind the load balancer.
    sql: `
      CREATE TABLE console_links (
        hash bytea PRIMARY KEY,
        member_id bigint,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        used_at bigint
      );
      CREATE INDEX console_links_expiry ON console_links(expires_at);
      CREATE TABLE console_sessions (
        hash bytea PRIMARY KEY,
        member_id bigint,
        created_at bigint NOT NULL,
        last_seen_at bigint NOT NULL
      );
      CREATE INDEX console_sessions_seen ON console_sessions(last_seen_at);
    `,
  },
  {
    version: 8,
    name: 'webhook-deliveries-by-team',
    // As SQLite's migration 8 (docs/webhooks.md "One team cannot hold up the others"): claims walk the teams with pending deliveries and take
    // each team's oldest due ones.
    sql: `
      CREATE INDEX webhook_deliveries_team_due ON webhook_deliveries(team_id, next_attempt_at)
        WHERE state = 'pending';
      DROP INDEX webhook_deliveries_due;
    `,
  },
  {
    version: 9,
    name: 'webhook-endpoint-creator',
    // As SQLite's migration 9 (docs/webhooks.md "Who created an endpoint"): who created an endpoint, NULL when made before.
    sql: `
      ALTER TABLE webhook_endpoints ADD COLUMN created_via text CHECK (created_via IN ('api', 'cli')),
        ADD COLUMN created_by_member bigint, ADD COLUMN created_by_key bigint;
    `,
  },
  {
    version: 10,
    name: 'lead-changes',
    // As SQLite's migration 10 (leads that change, issue 39), but the feed's place is already
    // (txid, seq): a change sets txid to its own transaction's, which moves the lead to the end
    // of the feed once that transaction has ended (leads_team_feed serves it as before).
    // Constant defaults: no table rewrite. ANALYZE (a sample, seconds on a large table): until the
    // new columns have statistics the planner guesses `merged_into IS NULL` rare, which can turn
    // v1's ordered index walks into sorts (bench/RESULTS.md, "Leads that change").
    sql: `
      ALTER TABLE leads ADD COLUMN version integer NOT NULL DEFAULT 1,
        ADD COLUMN merged_into uuid,
        ADD COLUMN changed_via text CHECK (changed_via IN ('api', 'import', 'console', 'cli')),
        ADD COLUMN changed_at bigint;
      ALTER TABLE webhook_endpoints ADD COLUMN include_previous boolean NOT NULL DEFAULT false;
      ALTER TABLE webhook_events ADD COLUMN data text;
      ANALYZE leads;
    `,
  },
  {
    version: 11,
    name: 'webhook-events-by-lead',
    // As SQLite's migration 11 (docs/privacy.md "Subject access"): the webhook events about given
    // leads, found by the lead rather than by a walk of the team's outbox.
    sql: `
      CREATE INDEX webhook_events_lead ON webhook_events(team_id, lead_seq);
    `,
  },
  {
    version: 12,
    name: 'erasure',
    // As SQLite's migration 12 (docs/privacy.md "Erasure", issue 40): the erased lead's tombstone
    // columns, the indexes an erasure finds its rows by, receipts and suppressions. ANALYZE: as
    // in 10, so the planner knows `erased_at IS NULL` holds for nearly every row.
    sql: `
      ALTER TABLE leads ADD COLUMN erased_at bigint, ADD COLUMN erasure_id uuid;
      CREATE INDEX leads_merged_into ON leads(merged_into) WHERE merged_into IS NOT NULL;
      CREATE TABLE erasures (
        id uuid PRIMARY KEY,
        team_id bigint,
        requested_via text NOT NULL CHECK (requested_via IN ('key', 'operator')),
        requested_by_key bigint,
        requested_by_member bigint,
        requested_at bigint NOT NULL,
        email_hash text,
        lead_ids integer NOT NULL,
        counts text NOT NULL
      );
      CREATE INDEX erasures_requested ON erasures(requested_at);
      CREATE TABLE suppressions (
        team_id bigint,
        email_hash text NOT NULL,
        created_at bigint NOT NULL,
        erasure_id uuid
      );
      CREATE UNIQUE INDEX suppressions_key ON suppressions((coalesce(team_id, -1)), email_hash);
      ANALYZE leads;
    `,
  },
  {
    version: 13,
    name: 'audit-log',
    // As SQLite's migration 13 (docs/privacy.md "Audit log"): append-only, ids from an identity
    // column, the index for a team's newest-first pages.
    sql: `
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at bigint NOT NULL,
        team_id bigint,
        actor_via text NOT NULL CHECK (actor_via IN ('key', 'console', 'operator', 'server')),
        actor_key bigint,
        actor_member bigint,
        action text NOT NULL,
        details text NOT NULL
      );
      CREATE INDEX audit_log_team ON audit_log(team_id, id);
    `,
  },
  {
    version: 14,
    name: 'retention',
    // As SQLite's migration 14 (docs/privacy.md "Retention", issue 40): a retention policy per
    // team with the lease of the run that holds it; receipts requested by a policy.
    sql: `
      CREATE TABLE retention_policies (
        team_id bigint PRIMARY KEY,
        days integer NOT NULL CHECK (days >= 1),
        basis text NOT NULL DEFAULT 'last-change',
        set_at bigint NOT NULL,
        last_run_at bigint,
        last_erased integer,
        lease_owner text,
        lease_until bigint
      );
      ALTER TABLE erasures DROP CONSTRAINT erasures_requested_via_check,
        ADD CONSTRAINT erasures_requested_via_check
          CHECK (requested_via IN ('key', 'operator', 'retention', 'console')),
        ADD COLUMN retention_days integer;
    `,
  },
  {
    version: 15,
    name: 'v1-notices',
    // As SQLite's migration 15 (docs/webhooks.md "v1.usage"): the primary key is the claim of a
    // team's notice for a day; instances racing for it wait on it, and all but one insert nothing.
    sql: `
      CREATE TABLE v1_notices (
        team_id bigint NOT NULL,
        day text NOT NULL,
        event_id uuid NOT NULL,
        deliveries integer NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (team_id, day)
      );
    `,
  },
  {
    version: 16,
    name: 'feed-notify',
    // Issue 41 §2 (docs/v2.md "Waiting for changes"): every statement that stores or changes
    // leads, or stores outbox events, announces it on the channel leadline_feed, once per team
    // and transaction (PostgreSQL folds identical notifications of one transaction), delivered
    // at commit — so a request waiting on any instance wakes whichever path wrote: the API,
    // imports, merges, erasures, retention. Statement triggers over transition tables: an
    // import's batch of a thousand leads costs one trigger call, not a thousand. The payload is
    // the team's id; waiters of other teams sleep on.
    sql: `
      CREATE FUNCTION leadline_feed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('leadline_feed', t.team_id::text) FROM (SELECT DISTINCT team_id FROM changed) t;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER leads_feed_insert AFTER INSERT ON leads REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION leadline_feed_notify();
      CREATE TRIGGER leads_feed_update AFTER UPDATE ON leads REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION leadline_feed_notify();
      CREATE TRIGGER webhook_events_feed_insert AFTER INSERT ON webhook_events REFERENCING NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION leadline_feed_notify();
    `,
  },
  {
    version: 17,
    name: 'thin-payloads',
    // As SQLite's migration 17 (docs/webhooks.md "Thin payloads"): full bodies for every
    // endpoint stored before.
    sql: `
      ALTER TABLE webhook_endpoints ADD COLUMN payload text NOT NULL DEFAULT 'full'
        CHECK (payload IN ('full', 'thin'));
    `,
  },
  {
    version: 18,
    name: 'event-log',
    // As SQLite's migration 18 (docs/v2.md "Events"). Positions are (txid, seq), as the lead
    // feed's: seq is drawn before commit, so a reader of the log takes only the events of
    // transactions older than every one still running (events.ts). Events stored before keep
    // the migration's transaction: they come first, in seq order. The horizon is a (txid, seq).
    sql: `
      ALTER TABLE webhook_events ALTER COLUMN lead_seq DROP NOT NULL,
        ADD COLUMN body text,
        ADD COLUMN txid bigint NOT NULL DEFAULT 0;
      UPDATE webhook_events SET txid = pg_current_xact_id()::text::bigint;
      ALTER TABLE webhook_events ALTER COLUMN txid SET DEFAULT (pg_current_xact_id()::text::bigint);
      CREATE INDEX webhook_events_log ON webhook_events(team_id, txid, seq);
      CREATE INDEX webhook_events_at ON webhook_events(created_at);
      CREATE TABLE event_horizons (
        team_id bigint PRIMARY KEY,
        txid bigint NOT NULL,
        seq bigint NOT NULL
      );
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Key of the advisory lock that serialises migrations of several instances starting at once. */
const MIGRATION_LOCK = 7_471_830_201;

/** Brings the schema up to `target` (tests stop earlier to check what a later migration does). */
export async function migrate(sql: Sql, target = LATEST_VERSION): Promise<MigrationReport> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
    const [row] = await tx<{ v: number | null }[]>`SELECT max(version) AS v FROM schema_migrations`;
    const from = row?.v ?? 0;
    if (from > LATEST_VERSION) {
      throw new MigrationError(
        `store schema is at version ${from}, newer than this leadline knows (${LATEST_VERSION}); upgrade leadline`,
      );
    }
    const applied: string[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= from || m.version > target) continue;
      try {
        await tx.savepoint(async (sp) => {
          await sp.unsafe(typeof m.sql === 'string' ? m.sql : m.sql({ trgm: await ensureTrigram(sp) }));
          await m.after?.(sp);
          await sp`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${Date.now()})`;
        });
      } catch (err) {
        throw new MigrationError(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
      }
      applied.push(`${m.version}-${m.name}`);
    }
    return { from, to: Math.max(from, Math.min(target, LATEST_VERSION)), applied };
  });
}
