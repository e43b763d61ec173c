import type { Sql } from 'postgres';
import type { Role } from '../../domain/directory.js';
import type { ApiKey, KeyStore, NewApiKey, StoredKey } from '../../domain/store.js';
import { KEY_COLUMNS, type KeyRow, toApiKey } from '../rows.js';

export class PostgresKeyStore implements KeyStore {
  private readonly columns;

  constructor(private readonly sql: Sql) {
    this.columns = sql.unsafe(KEY_COLUMNS);
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const [row] = await this.sql<KeyRow[]>`WITH k AS (
        INSERT INTO api_keys (member_id, display, hash, label, created_at, expires_at, legacy_v1)
        VALUES (${key.memberId}, ${key.display}, ${key.hash}, ${key.label}, ${key.createdAt}, ${key.expiresAt}, ${key.legacyV1})
        RETURNING *)
      SELECT ${this.columns} FROM k JOIN members m ON m.id = k.member_id`;
    return toApiKey(row!);
  }

  async list(memberId?: number): Promise<ApiKey[]> {
    const rows = await this.sql<
      KeyRow[]
    >`SELECT ${this.columns} FROM api_keys k JOIN members m ON m.id = k.member_id
      ${memberId === undefined ? this.sql`` : this.sql`WHERE k.member_id = ${memberId}`}
      ORDER BY k.id`;
    return rows.map(toApiKey);
  }

  async revoke(id: number, at: number): Promise<boolean> {
    const result = await this
      .sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
    return result.count === 1;
  }

  async setLegacyV1(id: number, granted: boolean): Promise<boolean> {
    const result = await this.sql`UPDATE api_keys SET legacy_v1 = ${granted} WHERE id = ${id}`;
    return result.count === 1;
  }

  async findByDisplay(display: string): Promise<StoredKey[]> {
    const rows = await this.sql<
      (KeyRow & { hash: Buffer; role: Role })[]
    >`SELECT ${this.columns}, k.hash, m.role FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.display = ${display}`;
    return rows.map((r) => ({ ...toApiKey(r), hash: Buffer.from(r.hash), role: r.role }));
  }
}
