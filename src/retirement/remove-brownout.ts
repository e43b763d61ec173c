import type { RetirementStore } from './retirement.port.js';

/** Removes a brownout window; false when there is no such one. */
export function removeBrownout(
  store: { retirement: RetirementStore },
  input: { id: number },
): Promise<boolean> {
  return store.retirement.removeBrownout(input.id);
}
