import type { Role } from '../directory/directory.js';

/**
 * What the keys slice needs from a store: API keys, stored by hash.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

export interface ApiKey {
  id: number;
  memberId: number;
  teamId: number;
  display: string;
  label: string | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  legacyV1: boolean;
}

/** A stored key with what authentication needs: its hash and its member's role. */
export interface StoredKey extends ApiKey {
  hash: Buffer;
  role: Role;
}

export interface NewApiKey {
  memberId: number;
  display: string;
  hash: Buffer;
  label: string | null;
  createdAt: number;
  expiresAt: number | null;
  legacyV1: boolean;
}

export interface KeyStore {
  create(key: NewApiKey): Promise<ApiKey>;
  list(memberId?: number): Promise<ApiKey[]>;
  /** Grants (or takes back) v1 access after the freeze; false when no such key. */
  setLegacyV1(id: number, granted: boolean): Promise<boolean>;
  /** Marks the key revoked; false when no such key (or already revoked). */
  revoke(id: number, at: number): Promise<boolean>;
  /** Keys whose display prefix matches; the caller compares hashes in constant time. */
  findByDisplay(display: string): Promise<StoredKey[]>;
}
