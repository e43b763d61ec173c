import type { DeliveryStore } from './deliveries.port.js';
import type { EndpointOwner } from './webhook.js';

/** Sends again every failed delivery of the endpoint created since `since`; how many. */
export function replayFailedDeliveries(
  store: { deliveries: DeliveryStore },
  input: { owner: EndpointOwner; endpointId: string; since: number; now: number },
): Promise<number> {
  return store.deliveries.replayFailed(input.owner, input.endpointId, input.since, input.now);
}
