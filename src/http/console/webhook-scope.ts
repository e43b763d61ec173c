import type { DeliveryRecord } from '../../webhooks/delivery.js';
import type { Endpoint, EndpointOwner } from '../../webhooks/webhook.js';
import { type ConsoleDeps, type ConsoleSession, notFound } from './console-deps.js';

/** The deliveries an endpoint's page lists unless `?limit=` says otherwise, and at most. */
export const DELIVERIES_SHOWN = 50;
export const DELIVERIES_MAX = 200;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who the store answers for: a team admin's own team, the operator every team. */
export function ownerOf(session: ConsoleSession): EndpointOwner {
  return session.subject.kind === 'operator' ? 'operator' : { teamId: session.subject.member.teamId };
}

/**
 * The endpoint, if the session may see it. The store decides (another team's endpoint is null, as
 * a missing one), so a tampered URL is the same "Not found" as an id that never existed.
 */
export async function endpointInScope(
  deps: ConsoleDeps,
  session: ConsoleSession,
  id: string,
): Promise<Endpoint> {
  if (!UUID.test(id)) throw notFound();
  const endpoint = await deps.store.webhooks.endpoint(ownerOf(session), id.toLowerCase());
  if (endpoint === null) throw notFound();
  return endpoint;
}

/** The endpoint's newest deliveries, with their attempts (the store's `deliveries`, newest first). */
export async function recentDeliveries(
  deps: ConsoleDeps,
  session: ConsoleSession,
  endpoint: Endpoint,
  limit: number,
): Promise<DeliveryRecord[]> {
  const list = await deps.store.deliveries.deliveries(ownerOf(session), endpoint.id, limit);
  if (list === null) throw notFound();
  return list;
}
