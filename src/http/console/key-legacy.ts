import type { FastifyInstance } from 'fastify';
import { grantLegacyV1 } from '../../keys/grant-legacy-v1.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, checkCsrf, requireOperator, requireSession, teamInView } from './console-deps.js';
import { keyInScope } from './key-revoke.js';
import { teamQuery } from './layout.js';

/** The operator grants or takes back a key's legacy v1 access (as `leadline keys grant-legacy-v1`). */
export function keyLegacy(app: FastifyInstance, deps: ConsoleDeps): void {
  app.post('/keys/:id/legacy-v1', { schema: routeSchema('consoleLegacyV1') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    requireOperator(session, 'The legacy v1 grant is given and taken back by the operator.');
    const key = await keyInScope(deps, session, (request.params as { id: string }).id);
    const grant = (request.body as Record<string, unknown>).grant === 'yes';
    await grantLegacyV1(deps.store, { keyId: key.id, granted: grant });
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    return reply.redirect(`/console/keys${teamQuery(session, team)}`, 303);
  });
}
