import { findKey } from './find-key.js';
import type { KeyStore } from './keys.port.js';

/**
 * Revokes a key: refused from its next request on, on every instance. A team admin (`teamId`)
 * revokes their team's keys only, the operator (`teamId` null) any. False when there is no such
 * key for the one asking, or it was revoked already.
 */
export async function revokeKey(
  store: { keys: KeyStore },
  input: { keyId: number; teamId: number | null; now: number },
): Promise<boolean> {
  if (input.teamId !== null && (await findKey(store, input)) === null) return false;
  return store.keys.revoke(input.keyId, input.now);
}
