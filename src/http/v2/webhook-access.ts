import type { Config } from '../../config.js';
import { destinationProblem, type HostLookup } from '../../delivery/destination.js';
import { requireTeamAdmin } from '../../directory/access.js';
import type { Caller } from '../../directory/directory.js';
import { AppError, type InvalidParam, invalidParams } from '../../shared/errors.js';
import type { Store } from '../../store.js';
import type { EndpointOwner } from '../../webhooks/webhook.js';

/** What the webhook operations share: who may manage endpoints, and what a body may name. */

export const WEBHOOKS_PREFIX = '/api/pub/v2/webhooks';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The caller's team as owner of the endpoint in the path: team admins only (an endpoint receives
 * the whole team's leads); another team's endpoint is the same 404 as a missing one.
 */
export function endpointOf(caller: Caller, params: unknown): { owner: EndpointOwner; id: string } {
  requireTeamAdmin(caller);
  const { endpointId } = params as { endpointId: string };
  if (!UUID.test(endpointId)) throw notFound(endpointId);
  return { owner: { teamId: caller.teamId }, id: endpointId.toLowerCase() };
}

export function notFound(id: string): AppError {
  return new AppError('not-found', `No webhook endpoint ${id} in this team.`);
}

/** The URL may receive webhooks (issue 13 §6), else a 400 naming why. */
export async function checkUrl(url: string, config: Config, lookup: HostLookup): Promise<void> {
  const problem = await destinationProblem(url, config.webhooks, lookup);
  if (problem !== null) throw invalidParams([{ name: '/url', reason: problem }]);
}

/** Member and subteam filters name the caller's team's members and subteams only. */
export async function checkFilters(
  store: Store,
  caller: Caller,
  members: number[] | null | undefined,
  subteams: number[] | null | undefined,
): Promise<void> {
  const bad: InvalidParam[] = [];
  for (const [i, id] of (members ?? []).entries()) {
    const m = await store.directory.findMember(id);
    if (m === null || m.teamId !== caller.teamId)
      bad.push({ name: `/memberIds/${i}`, reason: `no member ${id} in this team` });
  }
  for (const [i, id] of (subteams ?? []).entries()) {
    if ((await store.directory.subteamAccess(caller.teamId, id, caller.memberId)) === null)
      bad.push({ name: `/subteamIds/${i}`, reason: `no subteam ${id} in this team` });
  }
  if (bad.length > 0) throw invalidParams(bad);
}
