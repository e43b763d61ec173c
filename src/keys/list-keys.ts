import type { ApiKey, KeyStore } from './keys.port.js';

/** The keys a team admin may see: their team's (`teamId`); the operator (`teamId` null) every key. */
export async function listKeys(
  store: { keys: KeyStore },
  input: { teamId: number | null },
): Promise<ApiKey[]> {
  const keys = await store.keys.list();
  return input.teamId === null ? keys : keys.filter((k) => k.teamId === input.teamId);
}
