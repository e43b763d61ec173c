import type { TSchema } from 'typebox';
import type { Json } from './build.js';
import { consolePaths } from './console.js';
import { pagePaths } from './pages.js';
import { servicePaths } from './service.js';
import { v1Paths } from './v1.js';
import { v2Paths } from './v2.js';
import { webhookPaths } from './webhooks.js';

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
 * Every operation of every area's table, by operationId. A table groups its operations under the
 * path they are routed at, as a reader looks them up; the route, not the table, decides the path
 * the document shows (the drift test in test/unit/openapi.test.ts keeps the two the same).
 */
export const OPERATIONS: ReadonlyMap<string, OperationDoc> = (() => {
  const out = new Map<string, OperationDoc>();
  const tables = [v2Paths(), webhookPaths(), v1Paths(), servicePaths(), pagePaths(), consolePaths()];
  for (const table of tables)
    for (const item of Object.values(table))
      for (const op of Object.values(item) as OperationDoc[]) {
        if (out.has(op.operationId)) throw new Error(`operationId ${op.operationId} is in two tables`);
        out.set(op.operationId, op);
      }
  return out;
})();
