import type Database from 'better-sqlite3';

/**
 * "Has anything been committed to the file since I last looked?" for a memory kept beside one
 * connection: the file's `data_version` moves when another connection (another process, the
 * erasure thread) commits, this connection's `total_changes()` when it writes itself. Two plain
 * statements, not one SELECT over the pragma_data_version table function, which costs more a
 * call (bench/key-stamp.ts; the pragma's file check is most of either).
 */
export class FileStamp {
  private readonly versionStmt: Database.Statement;
  private readonly changesStmt: Database.Statement;
  private version = Number.NaN;
  private changes = Number.NaN;

  constructor(db: Database.Database) {
    this.versionStmt = db.prepare('PRAGMA data_version').pluck();
    this.changesStmt = db.prepare('SELECT total_changes()').pluck();
  }

  /**
   * Reads the stamp; true when it differs from the one the previous call read (and the first
   * time): whatever was remembered since then may be out of date.
   */
  moved(): boolean {
    const version = this.versionStmt.get() as number;
    const changes = this.changesStmt.get() as number;
    if (version === this.version && changes === this.changes) return false;
    this.version = version;
    this.changes = changes;
    return true;
  }
}
