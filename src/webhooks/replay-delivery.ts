import { AppError } from '../shared/errors.js';
import type { DeliveryStore } from './deliveries.port.js';
import type { EndpointOwner } from './webhook.js';

/**
 * Sends a delivery again now, with the same body and webhook-id and a fresh retry schedule;
 * `not-found` when the owner has no such delivery, or its body was dropped after the retention.
 */
export async function replayDelivery(
  store: { deliveries: DeliveryStore },
  input: { owner: EndpointOwner; deliveryId: number; now: number },
): Promise<void> {
  if (!(await store.deliveries.replay(input.owner, input.deliveryId, input.now)))
    throw new AppError('not-found', `No delivery ${input.deliveryId} to replay (or it was dropped).`);
}
