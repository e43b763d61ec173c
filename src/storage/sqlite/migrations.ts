import type Database from 'better-sqlite3';
import { MigrationError } from '../migration-error.js';
import type { MigrationReport } from '../store.js';

/**
 * Versioned schema of the embedded store. Append only: a released migration never changes.
 * Indexes lead with the team (as the PostgreSQL schema will), and make every v1 operation an
 * index walk: (team, member, epoch, seq) for a member's leads, (team, epoch, seq) for a team's.
 */
interface Migration {
  version: number;
  name: string;
  sql: string;
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
];

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

export function migrate(db: Database.Database): MigrationReport {
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
    if (m.version <= from) continue;
    try {
      db.transaction(() => {
        db.exec(m.sql);
        record.run(m.version, m.name, Date.now());
      }).immediate();
    } catch (err) {
      throw new MigrationError(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
    }
    applied.push(`${m.version}-${m.name}`);
  }
  return { from, to: Math.max(from, LATEST_VERSION), applied };
}
