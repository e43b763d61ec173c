import type { KeyStore } from './keys.port.js';

/**
 * Grants (`granted`) or takes back a key's legacy v1 access after the freeze (docs/v1-deprecation-policy.md):
 * the operator's decision, through `leadline keys grant-legacy-v1` or the console. False when no such key.
 */
export function grantLegacyV1(
  store: { keys: KeyStore },
  input: { keyId: number; granted: boolean },
): Promise<boolean> {
  return store.keys.setLegacyV1(input.keyId, input.granted);
}
