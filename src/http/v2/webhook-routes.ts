import type { FastifyInstance, HTTPMethods } from 'fastify';
import type { HostLookup } from '../../delivery/destination.js';
import { AppError } from '../../shared/errors.js';
import { routeSchema } from '../route-schema.js';
import { createWebhook } from './create-webhook.js';
import { deleteWebhook } from './delete-webhook.js';
import { getWebhook } from './get-webhook.js';
import { cursorCodec, type V2Deps, type V2Handler, v2Route } from './handler.js';
import { listWebhookDeliveries } from './list-webhook-deliveries.js';
import { listWebhooks } from './list-webhooks.js';
import { recoverWebhook } from './recover-webhook.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { testWebhook } from './test-webhook.js';
import { updateWebhook } from './update-webhook.js';
import { WEBHOOKS_PREFIX } from './webhook-access.js';

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

type Operation = { name: string; methods: HTTPMethods[]; handler: V2Handler };

/** The webhook endpoint operations (docs/webhooks.md, "Endpoints"), one file each; several share a path. */
export async function webhookRoutes(app: FastifyInstance, deps: V2Deps, lookup: HostLookup): Promise<void> {
  const cursors = cursorCodec(deps.store);
  const one = `${WEBHOOKS_PREFIX}/:endpointId`;
  const paths: { url: string; operations: Operation[] }[] = [
    {
      url: WEBHOOKS_PREFIX,
      operations: [
        { name: 'listWebhooks', methods: ['GET', 'HEAD'], handler: listWebhooks },
        { name: 'createWebhook', methods: ['POST'], handler: createWebhook(lookup) },
      ],
    },
    {
      url: one,
      operations: [
        { name: 'getWebhook', methods: ['GET', 'HEAD'], handler: getWebhook },
        { name: 'updateWebhook', methods: ['PATCH'], handler: updateWebhook(lookup) },
        { name: 'deleteWebhook', methods: ['DELETE'], handler: deleteWebhook },
      ],
    },
    {
      url: `${one}/rotate-secret`,
      operations: [{ name: 'rotateWebhookSecret', methods: ['POST'], handler: rotateWebhookSecret }],
    },
    {
      url: `${one}/test`,
      operations: [{ name: 'testWebhook', methods: ['POST'], handler: testWebhook }],
    },
    {
      url: `${one}/recover`,
      operations: [{ name: 'recoverWebhook', methods: ['POST'], handler: recoverWebhook }],
    },
    {
      url: `${one}/deliveries`,
      operations: [
        { name: 'listWebhookDeliveries', methods: ['GET', 'HEAD'], handler: listWebhookDeliveries },
      ],
    },
  ];
  for (const path of paths) {
    const answered = path.operations.flatMap((op) => op.methods);
    const allow = answered.join(', ');
    for (const op of path.operations) {
      app.route({
        method: op.methods,
        url: path.url,
        schema: routeSchema(op.name, { allow }),
        // A body's 400 comes after the key and role checks: validBody (route-schema.ts).
        attachValidation: true,
        handler: v2Route(op.name, op.handler, deps, cursors),
      });
    }
    const refuse = async (): Promise<never> => {
      throw new AppError('method-not-allowed', `This path answers ${allow} only.`);
    };
    app.route({
      method: ALL_METHODS.filter((m) => !answered.includes(m)),
      url: path.url,
      onRequest: async (_request, reply) => {
        reply.header('allow', allow);
        await refuse();
      },
      handler: refuse,
    });
  }
}
