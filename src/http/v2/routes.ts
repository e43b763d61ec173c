import type { FastifyInstance, HTTPMethods } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { routeSchema } from '../route-schema.js';
import { createLead } from './create-lead.js';
import { getLead } from './get-lead.js';
import { getMe } from './get-me.js';
import { cursorCodec, V2_PREFIX, type V2Deps, type V2Handler, v2Route } from './handler.js';
import { leadChanges } from './lead-changes.js';
import { searchLeads } from './search-leads.js';

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** The v2 operations (v2-and-lifecycle "V2 interface"), one file each. */
export async function v2Routes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  const cursors = cursorCodec(deps.store);
  const routes: { name: string; url: string; methods: HTTPMethods[]; handler: V2Handler }[] = [
    { name: 'searchLeads', url: `${V2_PREFIX}/search`, methods: ['POST'], handler: searchLeads },
    { name: 'leadChanges', url: `${V2_PREFIX}/changes`, methods: ['GET', 'HEAD'], handler: leadChanges },
    { name: 'getLead', url: `${V2_PREFIX}/:leadId`, methods: ['GET', 'HEAD'], handler: getLead },
    { name: 'createLead', url: V2_PREFIX, methods: ['POST'], handler: createLead },
    { name: 'getMe', url: '/api/pub/v2/me', methods: ['GET', 'HEAD'], handler: getMe },
  ];
  for (const r of routes) {
    const allow = r.methods.join(', ');
    app.route({
      method: r.methods,
      url: r.url,
      schema: routeSchema(r.name, { allow }),
      // A body's 400 comes after the key and role checks: validBody (route-schema.ts).
      attachValidation: true,
      handler: v2Route(r.name, r.handler, deps, cursors),
    });
    const others = ALL_METHODS.filter((m) => !r.methods.includes(m));
    // Refused before any body is read: a 405 naming what the path answers.
    app.route({
      method: others,
      url: r.url,
      onRequest: async (_request, reply) => {
        reply.header('allow', allow);
        throw new AppError('method-not-allowed', `This path answers ${allow} only.`);
      },
      handler: async () => {
        throw new AppError('method-not-allowed', `This path answers ${allow} only.`);
      },
    });
  }
}
