import type { TSchema } from 'typebox';
import { auditOperations } from './audit.js';
import type { Json } from './build.js';
import { consoleOperations } from './console.js';
import { eventOperations } from './events.js';
import { pageOperations } from './pages.js';
import { privacyOperations } from './privacy.js';
import { serviceOperations } from './service.js';
import { v1Operations } from './v1.js';
import { v2Operations } from './v2.js';
import { webhookOperations } from './webhooks.js';

/** One OpenAPI parameter, as the tables write it. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Json;
  example?: unknown;
}

/**
 * One operation as a table of src/http/openapi/ describes it: the words and answers a route's
 * schema takes (route-schema.ts). `body` is the TypeBox schema a JSON body is validated with;
 * `path` names the one documented path of several fixed routes (static files).
 */
export interface OperationDoc {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  deprecated?: boolean;
  security?: Json[];
  parameters?: Parameter[];
  requestBody?: Json;
  body?: TSchema;
  responses: Json;
  path?: string;
}

/**
 * Every operation of every area's table, by operationId. A table says what an operation takes and
 * answers, not where it is: the route that declares `routeSchema(operationId)` is (its URL and
 * methods are the document's path and method).
 */
export const OPERATIONS: ReadonlyMap<string, OperationDoc> = (() => {
  const out = new Map<string, OperationDoc>();
  const tables = [
    v2Operations(),
    webhookOperations(),
    privacyOperations(),
    auditOperations(),
    eventOperations(),
    v1Operations(),
    serviceOperations(),
    pageOperations(),
    consoleOperations(),
  ];
  for (const op of tables.flat() as unknown as OperationDoc[]) {
    if (out.has(op.operationId)) throw new Error(`operationId ${op.operationId} is in two tables`);
    out.set(op.operationId, op);
  }
  return out;
})();
