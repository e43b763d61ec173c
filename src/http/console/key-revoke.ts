import type { FastifyInstance } from 'fastify';
import { findKey } from '../../keys/find-key.js';
import type { ApiKey } from '../../keys/keys.port.js';
import { revokeKey } from '../../keys/revoke-key.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  type ConsoleSession,
  checkCsrf,
  consoleActor,
  noStore,
  notFound,
  requireSession,
  teamInView,
} from './console-deps.js';
import { html, when } from './html.js';
import { page, teamQuery } from './layout.js';

/** Whose keys the session acts on: a team admin's team, the operator every team's (null). */
function teamOf(session: ConsoleSession): number | null {
  return session.subject.kind === 'team-admin' ? session.subject.member.teamId : null;
}

/** The key, if the session may act on it: a team admin only on their team's keys. */
export async function keyInScope(deps: ConsoleDeps, session: ConsoleSession, id: string): Promise<ApiKey> {
  if (!/^[0-9]{1,15}$/.test(id)) throw notFound();
  const key = await findKey(deps.store, { keyId: Number(id), teamId: teamOf(session) });
  if (key === null) throw notFound();
  return key;
}

/**
 * Revoking asks first (a page of its own, so it works without script and has a URL); the POST
 * revokes, and the key is refused from its next request on, on every instance.
 */
export function keyRevoke(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/keys/:id/revoke', { schema: routeSchema('consoleRevokeKeyPage') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const key = await keyInScope(deps, session, (request.params as { id: string }).id);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const q = teamQuery(session, team);
    const body = html`<p>Revoke key <code>${key.display}…</code>${key.label === null ? '' : html` (${key.label})`}, created ${when(key.createdAt)}?
Every request made with it is refused from then on. This cannot be undone.</p>
<form method="post" action="/console/keys/${key.id}/revoke${q}"><input type="hidden" name="_csrf" value="${session.csrf}">
<button type="submit" class="danger">Revoke key ${key.display}…</button> <a href="/console/keys${q}">Cancel</a></form>`;
    return noStore(reply).send(page('Revoke a key', body, { session, view: 'keys', team }));
  });

  app.post('/keys/:id/revoke', { schema: routeSchema('consoleRevokeKey') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    const key = await keyInScope(deps, session, (request.params as { id: string }).id);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    await revokeKey(deps.store, {
      keyId: key.id,
      teamId: teamOf(session),
      now: deps.now(),
      actor: consoleActor(session),
    });
    return reply.redirect(`/console/keys${teamQuery(session, team)}`, 303);
  });
}
