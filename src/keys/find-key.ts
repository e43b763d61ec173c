import type { Store } from '../store.js';
import type { ApiKey } from './keys.port.js';

/**
 * The key, if the one asking may act on it: a team admin (`teamId`) only on their team's keys,
 * the operator (`teamId` null) on every key. Another team's key is null, as a missing one.
 */
export async function findKey(
  store: Pick<Store, 'keys'>,
  input: { keyId: number; teamId: number | null },
): Promise<ApiKey | null> {
  const key = (await store.keys.list()).find((k) => k.id === input.keyId);
  if (key === undefined) return null;
  return input.teamId !== null && key.teamId !== input.teamId ? null : key;
}
