import type Database from 'better-sqlite3';
import type { Role } from '../../directory/directory.js';
import type { ApiKey, KeyStore, NewApiKey, StoredKey } from '../../keys/keys.port.js';
import { KEY_COLUMNS, type KeyRow, toApiKey } from '../rows.js';
import { FileStamp } from './file-stamp.js';

/** Keys remembered by display prefix; dropped whenever the file may have changed (see `stamp`). */
const CACHE_MAX = 10_000;

export class SqliteKeyStore implements KeyStore {
  private cache = new Map<string, StoredKey[]>();
  /** "The file may hold other keys, roles or grants than we read": `cache` is begun again. */
  private readonly stamp: FileStamp;
  private readonly insertStmt: Database.Statement;
  private readonly byIdStmt: Database.Statement;
  private readonly listStmt: Database.Statement;
  private readonly listByMemberStmt: Database.Statement;
  private readonly revokeStmt: Database.Statement;
  private readonly byDisplayStmt: Database.Statement;
  private readonly legacyStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare(`INSERT INTO api_keys
      (member_id, display, hash, label, created_at, expires_at, legacy_v1) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.byIdStmt = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k JOIN members m ON m.id = k.member_id
      WHERE k.id = ?`);
    this.listStmt = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k JOIN members m ON m.id = k.member_id
      ORDER BY k.id`);
    this.listByMemberStmt =
      db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k JOIN members m ON m.id = k.member_id
      WHERE k.member_id = ? ORDER BY k.id`);
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.legacyStmt = db.prepare('UPDATE api_keys SET legacy_v1 = ? WHERE id = ?');
    this.byDisplayStmt = db.prepare(`SELECT ${KEY_COLUMNS}, k.hash, m.role FROM api_keys k
      JOIN members m ON m.id = k.member_id WHERE k.display = ?`);
    this.stamp = new FileStamp(db);
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const info = this.insertStmt.run(
      key.memberId,
      key.display,
      key.hash,
      key.label,
      key.createdAt,
      key.expiresAt,
      key.legacyV1 ? 1 : 0,
    );
    return toApiKey(this.byIdStmt.get(info.lastInsertRowid) as KeyRow);
  }

  async list(memberId?: number): Promise<ApiKey[]> {
    const rows = (
      memberId === undefined ? this.listStmt.all() : this.listByMemberStmt.all(memberId)
    ) as KeyRow[];
    return rows.map(toApiKey);
  }

  async revoke(id: number, at: number): Promise<boolean> {
    return this.revokeStmt.run(at, id).changes === 1;
  }

  async setLegacyV1(id: number, granted: boolean): Promise<boolean> {
    return this.legacyStmt.run(granted ? 1 : 0, id).changes === 1;
  }

  /**
   * Served from memory while nothing was written to the file since it was read — one cheap
   * pragma per request instead of a join — so a revocation, grant or role change made by any
   * process is still seen by the very next request.
   */
  async findByDisplay(display: string): Promise<StoredKey[]> {
    if (this.stamp.moved() || this.cache.size >= CACHE_MAX) this.cache = new Map();
    let keys = this.cache.get(display);
    if (keys === undefined) {
      const rows = this.byDisplayStmt.all(display) as (KeyRow & { hash: Buffer; role: Role })[];
      keys = rows.map((r) => ({ ...toApiKey(r), hash: r.hash, role: r.role }));
      this.cache.set(display, keys);
    }
    return keys;
  }
}
