import type { FastifyInstance } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { replayDelivery } from '../../webhooks/replay-delivery.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  ConsolePageError,
  checkCsrf,
  notFound,
  requireSession,
  teamInView,
} from './console-deps.js';
import { teamQuery } from './layout.js';
import { REPLAYABLE } from './webhook-page.js';
import { DELIVERIES_MAX, endpointInScope, ownerOf, recentDeliveries } from './webhook-scope.js';

/**
 * Replays a finished delivery of an endpoint (as `leadline webhooks replay <id>`): the same body
 * and webhook-id, attempted again now with a fresh retry schedule. The delivery must be one the
 * endpoint's page lists (its newest DELIVERIES_MAX): the endpoint is the session's — another
 * team's is not found — and the delivery is that endpoint's.
 */
export function deliveryReplay(app: FastifyInstance, deps: ConsoleDeps): void {
  app.post(
    '/webhooks/:id/deliveries/:delivery/replay',
    { schema: routeSchema('consoleReplayDelivery') },
    async (request, reply) => {
      const session = await requireSession(request, deps);
      checkCsrf(session, request.body);
      const params = request.params as { id: string; delivery: string };
      const endpoint = await endpointInScope(deps, session, params.id);
      const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
      if (!/^[0-9]{1,15}$/.test(params.delivery)) throw notFound();
      const list = await recentDeliveries(deps, session, endpoint, DELIVERIES_MAX);
      const delivery = list.find((d) => d.id === Number(params.delivery));
      if (delivery === undefined) throw notFound();
      if (!REPLAYABLE.has(delivery.state)) {
        throw new ConsolePageError(
          409,
          'Not replayed',
          delivery.state === 'pending'
            ? `Delivery ${delivery.id} is already waiting for its next attempt.`
            : `Delivery ${delivery.id} was dropped after the retention period: its body is gone.`,
        );
      }
      await replayDelivery(deps.store, {
        owner: ownerOf(session),
        deliveryId: delivery.id,
        now: deps.now(),
      }).catch((err: unknown) => {
        throw err instanceof AppError && err.code === 'not-found' ? notFound() : err;
      });
      const q = teamQuery(session, team);
      const back = `/console/webhooks/${endpoint.id}${q}${q === '' ? '?' : '&'}replayed=${delivery.id}`;
      return reply.redirect(`${back}#delivery-${delivery.id}`, 303);
    },
  );
}
