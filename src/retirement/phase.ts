import { isFrozenOut, isSunset, type V1Times } from './gates.js';

/**
 * Where the retirement of v1 stands at `now` (docs/v1-deprecation-policy.md):
 * `open` before the deprecation time; `deprecated` after it (every answer says so);
 * `frozen` after the freeze (keys made since need a legacy grant); `sunset` after the sunset
 * (every v1 call is 410). Brownouts come and go within any phase but `sunset`.
 */
export type V1Phase = 'open' | 'deprecated' | 'frozen' | 'sunset';

export function v1Phase(times: V1Times, now: number): V1Phase {
  if (isSunset(times, now)) return 'sunset';
  if (now > times.frozenAt) return 'frozen';
  if (now >= times.deprecatedAt) return 'deprecated';
  return 'open';
}

/** Whether a key may call v1 at `now`, brownouts aside: before the sunset, made before the freeze or granted. */
export function keyMayCallV1(
  times: V1Times,
  key: { createdAt: number; legacyV1: boolean },
  now: number,
): boolean {
  return (
    !isSunset(times, now) && !isFrozenOut(times, { keyCreatedAt: key.createdAt, legacyV1: key.legacyV1 })
  );
}
