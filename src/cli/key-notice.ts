import type { V1Times } from '../retirement/gates.js';
import { keyMayCallV1 } from '../retirement/phase.js';

/**
 * What `keys create` adds when the new key cannot call v1 (docs/v1-deprecation-policy.md): a key made after the
 * freeze gets 403 on v1, which the README's v1 examples would otherwise show as a surprise.
 * Null when the key may call v1.
 */
export function keyV1Notice(
  times: V1Times,
  key: { id: number; createdAt: number; legacyV1: boolean },
  member: string,
  now: number,
): string | null {
  if (keyMayCallV1(times, key, now)) return null;
  const iso = (ms: number) => new Date(ms).toISOString();
  if (times.sunsetAt !== null && now >= times.sunsetAt) {
    return `note: v1 was retired at ${iso(times.sunsetAt)} (LEADLINE_V1_SUNSET_AT): this key calls v2 only.`;
  }
  return [
    `note: this key is v2-only. v1 closed to new integrations at ${iso(times.frozenAt)} (LEADLINE_V1_FROZEN_AT),`,
    'so its v1 calls get 403 v1-closed-to-new-integrations. For an integration that must still call v1:',
    `  leadline keys grant-legacy-v1 ${key.id}`,
    `  (or make its key with: leadline keys create --member ${member} --legacy-v1)`,
  ].join('\n');
}
