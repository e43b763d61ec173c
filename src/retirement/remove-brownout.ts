import type { Store } from '../store.js';

/** Removes a brownout window; false when there is no such one. */
export function removeBrownout(store: Pick<Store, 'retirement'>, input: { id: number }): Promise<boolean> {
  return store.retirement.removeBrownout(input.id);
}
