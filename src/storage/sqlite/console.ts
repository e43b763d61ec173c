import type Database from 'better-sqlite3';
import type {
  ConsoleHolder,
  ConsoleStore,
  NewConsoleSession,
  NewSignInLink,
} from '../../console/console.port.js';

/** Console sign-in links and sessions in the embedded store (migration 7). */
export class SqliteConsoleStore implements ConsoleStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      addLink: db.prepare(
        'INSERT INTO console_links (hash, member_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
      ),
      redeemLink: db.prepare(`UPDATE console_links SET used_at = ?
        WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING member_id`),
      addSession: db.prepare(
        'INSERT INTO console_sessions (hash, member_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)',
      ),
      touchSession: db.prepare(`UPDATE console_sessions SET last_seen_at = ?
        WHERE hash = ? AND last_seen_at > ? AND created_at > ? RETURNING member_id`),
      removeSession: db.prepare('DELETE FROM console_sessions WHERE hash = ?'),
      pruneLinks: db.prepare('DELETE FROM console_links WHERE expires_at < ?'),
      pruneSessions: db.prepare('DELETE FROM console_sessions WHERE last_seen_at <= ?'),
    };
  }

  async addLink(link: NewSignInLink): Promise<void> {
    this.stmts.addLink.run(link.hash, link.memberId, link.createdAt, link.expiresAt);
  }

  async redeemLink(hash: Buffer, now: number): Promise<ConsoleHolder | null> {
    const row = this.stmts.redeemLink.get(now, hash, now) as { member_id: number | null } | undefined;
    return row === undefined ? null : { memberId: row.member_id };
  }

  async addSession(session: NewConsoleSession): Promise<void> {
    this.stmts.addSession.run(session.hash, session.memberId, session.createdAt, session.createdAt);
  }

  async touchSession(
    hash: Buffer,
    now: number,
    idleSince: number,
    createdSince: number,
  ): Promise<ConsoleHolder | null> {
    const row = this.stmts.touchSession.get(now, hash, idleSince, createdSince) as
      | { member_id: number | null }
      | undefined;
    return row === undefined ? null : { memberId: row.member_id };
  }

  async removeSession(hash: Buffer): Promise<void> {
    this.stmts.removeSession.run(hash);
  }

  async prune(before: number, idleSince: number): Promise<void> {
    this.stmts.pruneLinks.run(before);
    this.stmts.pruneSessions.run(idleSince);
  }
}
