import type { ApiKey } from './keys.port.js';

/** Where a key stands: refused from its revocation or its expiry on. */
export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: ApiKey, now: number): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

/** Each key's last call, v1 or v2, in the usage ledger (written every LEADLINE_USAGE_FLUSH_MS). */
export function lastUsedByKey(usage: readonly { keyId: number; lastSeen: number }[]): Map<number, number> {
  const last = new Map<number, number>();
  for (const row of usage) last.set(row.keyId, Math.max(last.get(row.keyId) ?? 0, row.lastSeen));
  return last;
}
