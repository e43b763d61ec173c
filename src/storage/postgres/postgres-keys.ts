import type { Sql } from 'postgres';
import type { Role } from '../../domain/directory.js';
import type { ApiKey, KeyStore, NewApiKey, StoredKey } from '../store.js';

interface KeyRow {
  id: number;
  member_id: number;
  team_id: number;
  display: string;
  label: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  legacy_v1: boolean;
}

function toApiKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    memberId: r.member_id,
    teamId: r.team_id,
    display: r.display,
    label: r.label,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    legacyV1: r.legacy_v1,
  };
}

export class PostgresKeyStore implements KeyStore {
  constructor(private readonly sql: Sql) {}

  async create(key: NewApiKey): Promise<ApiKey> {
    const [row] = await this.sql<KeyRow[]>`WITH k AS (
        INSERT INTO api_keys (member_id, display, hash, label, created_at, expires_at, legacy_v1)
        VALUES (${key.memberId}, ${key.display}, ${key.hash}, ${key.label}, ${key.createdAt}, ${key.expiresAt}, ${key.legacyV1})
        RETURNING *)
      SELECT k.id, k.member_id, m.team_id, k.display, k.label, k.created_at, k.expires_at, k.revoked_at, k.legacy_v1
      FROM k JOIN members m ON m.id = k.member_id`;
    return toApiKey(row!);
  }

  async list(memberId?: number): Promise<ApiKey[]> {
    const rows = await this.sql<
      KeyRow[]
    >`SELECT k.id, k.member_id, m.team_id, k.display, k.label, k.created_at,
        k.expires_at, k.revoked_at, k.legacy_v1
      FROM api_keys k JOIN members m ON m.id = k.member_id
      ${memberId === undefined ? this.sql`` : this.sql`WHERE k.member_id = ${memberId}`}
      ORDER BY k.id`;
    return rows.map(toApiKey);
  }

  async revoke(id: number, at: number): Promise<boolean> {
    const result = await this
      .sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
    return result.count === 1;
  }

  async findByDisplay(display: string): Promise<StoredKey[]> {
    const rows = await this.sql<
      (KeyRow & { hash: Buffer; role: Role })[]
    >`SELECT k.id, k.member_id, m.team_id,
        k.display, k.label, k.created_at, k.expires_at, k.revoked_at, k.legacy_v1, k.hash, m.role
      FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.display = ${display}`;
    return rows.map((r) => ({ ...toApiKey(r), hash: Buffer.from(r.hash), role: r.role }));
  }
}
