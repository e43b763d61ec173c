import type { ApiKey, KeyStore } from './keys.port.js';
import { listKeys } from './list-keys.js';

/**
 * The key, if the one asking may act on it: a team admin (`teamId`) only on their team's keys,
 * the operator (`teamId` null) on every key. Another team's key is null, as a missing one.
 */
export async function findKey(
  store: { keys: KeyStore },
  input: { keyId: number; teamId: number | null },
): Promise<ApiKey | null> {
  return (await listKeys(store, input)).find((k) => k.id === input.keyId) ?? null;
}
