import { fingerprint } from '../../leads/cursor.js';
import { invalidParams } from '../../shared/errors.js';
import type { DeliveryState } from '../../webhooks/delivery.js';
import { deliveryToWire } from '../../webhooks/wire.js';
import { parseLimit, single } from './feed-params.js';
import type { V2Handler } from './handler.js';
import { endpointOf, notFound } from './webhook-access.js';

const STATES: DeliveryState[] = ['pending', 'delivered', 'failed', 'dropped'];

/**
 * GET /api/pub/v2/webhooks/{endpointId}/deliveries: the endpoint's deliveries, newest first
 * (what went wrong lately comes first), each with its attempts; `state` keeps one state.
 * `nextCursor` continues with older ones; null on the last page. The cursor is sealed and bound
 * to the team, the endpoint and the state filter.
 */
export const listWebhookDeliveries: V2Handler = async ({ caller, store, cursors }, request) => {
  const { owner, id } = endpointOf(caller, request.params);
  const query = request.query as Record<string, unknown>;
  const limit = parseLimit(query.limit);
  const stateText = single(query.state, 'state');
  if (stateText !== undefined && !(STATES as string[]).includes(stateText)) throw invalidState();
  const state = (stateText ?? null) as DeliveryState | null;
  const cursor = single(query.cursor, 'cursor');
  const codec = await cursors();
  const print = fingerprint({ endpoint: id, state });
  const before =
    cursor === undefined ? null : (codec.decode(cursor, 'deliveries', caller.teamId, print) as number);
  const page = await store.deliveries.deliveryPage(owner, id, { state, before, limit });
  if (page === null) throw notFound(id);
  return {
    data: {
      deliveries: page.deliveries.map(deliveryToWire),
      nextCursor: page.next === null ? null : codec.encode('deliveries', caller.teamId, print, page.next),
    },
  };
};

const invalidState = () => invalidParams([{ name: 'state', reason: `one of ${STATES.join(', ')}` }]);
