import type { WebhookConfig } from '../config.js';
import type { DirectoryStore } from '../directory/directory.port.js';
import { AppError, type InvalidParam, invalidParams } from '../shared/errors.js';
import { destinationProblem, type HostLookup } from './address.js';

/**
 * What the endpoint use cases share: what a URL and the filters may name, and the one "not found"
 * (another team's endpoint reads as a missing one). Refusals name the API's body fields
 * (`/url`, `/memberIds/0`); the command line shows the same reasons under its flags.
 */

export function endpointNotFound(id: string): AppError {
  return new AppError('not-found', `No webhook endpoint ${id} in this team.`);
}

/** The URL may receive webhooks (docs/webhooks.md), else `invalid-parameters` naming why. */
export async function checkUrl(url: string, config: WebhookConfig, lookup: HostLookup): Promise<void> {
  const problem = await destinationProblem(url, config, lookup);
  if (problem !== null) throw invalidParams([{ name: '/url', reason: problem }]);
}

/**
 * Member and subteam filters name the team's own members and subteams only. `askingMember`
 * is who registers (a team admin), null for the operator: it only shapes the store's answer
 * about the subteam (whether the asker administers it), never whether it is the team's.
 */
export async function checkFilters(
  directory: Pick<DirectoryStore, 'findMember' | 'subteamAccess'>,
  teamId: number,
  askingMember: number | null,
  members: readonly number[] | null | undefined,
  subteams: readonly number[] | null | undefined,
): Promise<void> {
  const bad: InvalidParam[] = [];
  for (const [i, id] of (members ?? []).entries()) {
    const m = await directory.findMember(id);
    if (m === null || m.teamId !== teamId)
      bad.push({ name: `/memberIds/${i}`, reason: `no member ${id} in this team` });
  }
  for (const [i, id] of (subteams ?? []).entries()) {
    if ((await directory.subteamAccess(teamId, id, askingMember ?? 0)) === null)
      bad.push({ name: `/subteamIds/${i}`, reason: `no subteam ${id} in this team` });
  }
  if (bad.length > 0) throw invalidParams(bad);
}
