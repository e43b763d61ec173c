import { keyMayCallV1 } from '../../retirement/phase.js';
import type { V2MeBody } from '../../schemas/v2-me.js';
import { AppError } from '../../shared/errors.js';
import type { V2Handler } from './handler.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** GET /api/pub/v2/me: the presented key, its member, team and scopes (src/schemas/v2-me.ts). */
export const getMe: V2Handler = async ({ caller, config, store, now }): Promise<V2MeBody> => {
  const [keys, member, team, subteams] = await Promise.all([
    store.keys.list(caller.memberId),
    store.directory.findMember(caller.memberId),
    store.directory.team(caller.teamId),
    store.directory.adminSubteams(caller.teamId, caller.memberId),
  ]);
  const key = keys.find((k) => k.id === caller.keyId);
  // Authentication just found all three: gone now means a concurrent change, not a client error.
  if (key === undefined || member === null || team === null) {
    throw new AppError('unauthorized', 'This key is no longer valid.');
  }
  const scopes: V2MeBody['data']['scopes'] = ['leads:read:own'];
  if (subteams.length > 0) scopes.push('leads:read:subteams');
  if (caller.role === 'admin') scopes.push('leads:read:team');
  scopes.push('leads:create');
  if (keyMayCallV1(config.v1, key, now)) scopes.push('v1');
  return {
    data: {
      key: {
        id: key.id,
        prefix: key.display,
        label: key.label,
        createdAt: new Date(key.createdAt).toISOString(),
        expiresAt: iso(key.expiresAt),
        legacyV1: key.legacyV1,
      },
      member: { id: member.id, email: member.email, name: member.name, role: member.role },
      team: { id: team.id, name: team.name },
      administeredSubteamIds: subteams,
      scopes,
    },
  };
};
