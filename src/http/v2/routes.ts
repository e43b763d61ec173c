import { setMaxListeners } from 'node:events';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { routeSchema } from '../route-schema.js';
import { createErasure, ERASURES_PREFIX } from './create-erasure.js';
import { createLead } from './create-lead.js';
import { findDuplicates } from './find-duplicates.js';
import { getDeprecations } from './get-deprecations.js';
import { getErasure } from './get-erasure.js';
import { getLead } from './get-lead.js';
import { getMe } from './get-me.js';
import { cursorCodec, V2_PREFIX, type V2Deps, type V2Handler, v2Route } from './handler.js';
import { leadChanges } from './lead-changes.js';
import { AUDIT_PATH, listAuditRecords } from './list-audit.js';
import { EVENTS_PATH, listEventsHandler } from './list-events.js';
import { mergeLeads } from './merge-leads.js';
import { searchLeads } from './search-leads.js';
import { subjectAccess } from './subject-access.js';
import { updateLead } from './update-lead.js';

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** A JSON Merge Patch (RFC 7396): the body of PATCH, read as JSON (docs/v2.md "Update a lead"). */
const MERGE_PATCH = 'application/merge-patch+json';

interface V2Route {
  name: string;
  url: string;
  methods: HTTPMethods[];
  handler: V2Handler;
}

/** The v2 operations (v2-and-lifecycle "V2 interface"), one file each. */
export async function v2Routes(app: FastifyInstance, deps: V2Deps): Promise<void> {
  const cursors = cursorCodec(deps.store);
  // Waiting feed requests (long-polls, event streams) let go as the server begins to close,
  // so a shutdown is not held up by them for the grace period.
  const closing = new AbortController();
  // One listener per waiting request: thousands are expected, not a leak.
  setMaxListeners(0, closing.signal);
  app.addHook('preClose', async () => closing.abort());
  const routes: V2Route[] = [
    { name: 'searchLeads', url: `${V2_PREFIX}/search`, methods: ['POST'], handler: searchLeads },
    { name: 'findDuplicates', url: `${V2_PREFIX}/duplicates`, methods: ['POST'], handler: findDuplicates },
    { name: 'leadChanges', url: `${V2_PREFIX}/changes`, methods: ['GET', 'HEAD'], handler: leadChanges },
    { name: 'getLead', url: `${V2_PREFIX}/:leadId`, methods: ['GET', 'HEAD'], handler: getLead },
    { name: 'updateLead', url: `${V2_PREFIX}/:leadId`, methods: ['PATCH'], handler: updateLead },
    { name: 'mergeLeads', url: `${V2_PREFIX}/:leadId/merge`, methods: ['POST'], handler: mergeLeads },
    { name: 'createLead', url: V2_PREFIX, methods: ['POST'], handler: createLead },
    { name: 'getMe', url: '/api/pub/v2/me', methods: ['GET', 'HEAD'], handler: getMe },
    {
      name: 'getDeprecations',
      url: '/api/pub/v2/me/deprecations',
      methods: ['GET', 'HEAD'],
      handler: getDeprecations,
    },
    { name: 'createErasure', url: ERASURES_PREFIX, methods: ['POST'], handler: createErasure },
    {
      name: 'getErasure',
      url: `${ERASURES_PREFIX}/:erasureId`,
      methods: ['GET', 'HEAD'],
      handler: getErasure,
    },
    { name: 'subjectAccess', url: '/api/pub/v2/subject-access', methods: ['POST'], handler: subjectAccess },
    { name: 'listAudit', url: AUDIT_PATH, methods: ['GET', 'HEAD'], handler: listAuditRecords },
    { name: 'listEvents', url: EVENTS_PATH, methods: ['GET', 'HEAD'], handler: listEventsHandler },
  ];
  const allowed = new Map<string, HTTPMethods[]>();
  for (const r of routes) allowed.set(r.url, [...(allowed.get(r.url) ?? []), ...r.methods]);

  const add = (scope: FastifyInstance, r: V2Route) =>
    scope.route({
      method: r.methods,
      url: r.url,
      schema: routeSchema(r.name, { allow: allowed.get(r.url)!.join(', ') }),
      // A body's 400 comes after the key and role checks: validBody (route-schema.ts).
      attachValidation: true,
      handler: v2Route(r.name, r.handler, deps, cursors, closing.signal),
    });
  for (const r of routes) if (r.name !== 'updateLead') add(app, r);
  // Only PATCH reads merge-patch+json (as JSON); elsewhere that type stays a 415.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      MERGE_PATCH,
      { parseAs: 'string' },
      scope.getDefaultJsonParser('error', 'error'),
    );
    add(scope, routes.find((r) => r.name === 'updateLead')!);
  });

  for (const [url, methods] of allowed) {
    const allow = methods.join(', ');
    // Refused before any body is read: a 405 naming what the path answers.
    app.route({
      method: ALL_METHODS.filter((m) => !methods.includes(m)),
      url,
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
