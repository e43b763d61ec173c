import { erasureReceipt } from '../../privacy/erase.js';
import { receiptToWire } from '../../privacy/wire.js';
import type { V2Handler } from './handler.js';

/** GET /api/pub/v2/erasures/{erasureId}: a receipt of the caller's team (team admins). */
export const getErasure: V2Handler = async ({ caller, store }, request) => {
  const { erasureId } = request.params as { erasureId: string };
  return { data: receiptToWire(await erasureReceipt(store, { caller }, erasureId)) };
};
