import type { Sql } from 'postgres';
import type {
  ConsoleHolder,
  ConsoleStore,
  NewConsoleSession,
  NewSignInLink,
} from '../../console/console.port.js';

/** Console sign-in links and sessions on PostgreSQL (migration 7), shared by every instance. */
export class PostgresConsoleStore implements ConsoleStore {
  constructor(private readonly sql: Sql) {}

  async addLink(link: NewSignInLink): Promise<void> {
    await this.sql`INSERT INTO console_links (hash, member_id, created_at, expires_at)
      VALUES (${link.hash}, ${link.memberId}, ${link.createdAt}, ${link.expiresAt})`;
  }

  async redeemLink(hash: Buffer, now: number): Promise<ConsoleHolder | null> {
    const [row] = await this.sql<{ member_id: number | null }[]>`UPDATE console_links SET used_at = ${now}
      WHERE hash = ${hash} AND used_at IS NULL AND expires_at > ${now} RETURNING member_id`;
    return row === undefined ? null : { memberId: row.member_id };
  }

  async addSession(session: NewConsoleSession): Promise<void> {
    await this.sql`INSERT INTO console_sessions (hash, member_id, created_at, last_seen_at)
      VALUES (${session.hash}, ${session.memberId}, ${session.createdAt}, ${session.createdAt})`;
  }

  async touchSession(
    hash: Buffer,
    now: number,
    idleSince: number,
    createdSince: number,
  ): Promise<ConsoleHolder | null> {
    const [row] = await this.sql<{ member_id: number | null }[]>`UPDATE console_sessions
      SET last_seen_at = ${now}
      WHERE hash = ${hash} AND last_seen_at > ${idleSince} AND created_at > ${createdSince}
      RETURNING member_id`;
    return row === undefined ? null : { memberId: row.member_id };
  }

  async removeSession(hash: Buffer): Promise<void> {
    await this.sql`DELETE FROM console_sessions WHERE hash = ${hash}`;
  }

  async prune(before: number, idleSince: number): Promise<void> {
    await this.sql`DELETE FROM console_links WHERE expires_at < ${before}`;
    await this.sql`DELETE FROM console_sessions WHERE last_seen_at <= ${idleSince}`;
  }
}
