import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describeErrors, type SchemaError } from '../schemas/schema-errors.js';
import { invalidParams } from '../shared/errors.js';
import { type Json, problems } from './openapi/build.js';
import { OPERATIONS, type OperationDoc } from './openapi/operations.js';

/**
 * A route's `schema`: what the route takes and answers, in the words of its operation in the
 * OpenAPI document (src/http/openapi/, one table per area, keyed by operationId). Every route
 * declares one (`schema: routeSchema('getLead')`); @fastify/swagger makes the document from
 * the registered routes (openapi.ts), so a route without one is not in the document and a
 * documented operation is always a route.
 *
 * - `params`, `querystring`, `headers`: JSON Schema objects made from the operation's
 *   parameters. They describe; only JSON bodies under /api/ are validated by Fastify (below).
 *   v1's parameters keep their own checks (docs/v1-reference.md C4 words them).
 * - `body`: the TypeBox schema of a JSON request body, validated before the handler runs;
 *   `validBody(request, Schema)` hands the handler the checked body or its 400 in words.
 * - `x-responses`, `x-request-body`: the operation's responses and request body as the document
 *   shows them. Kept out of Fastify's `response` on purpose: Fastify would compile serialisers
 *   for them, and v1's answers are pinned byte for byte (test/v1 golden files).
 */
export function routeSchema(operationId: string, options: RouteSchemaOptions = {}): Json {
  const op = OPERATIONS.get(operationId);
  if (op === undefined) throw new Error(`routeSchema: no operation ${operationId} in src/http/openapi/`);
  const { parameters = [], requestBody, responses, body, path, ...rest } = op;
  const schema: Json = { ...rest };
  for (const [where, part] of [
    ['path', 'params'],
    ['query', 'querystring'],
    ['header', 'headers'],
  ] as const) {
    const object = parametersSchema(parameters.filter((p) => p.in === where));
    if (object !== null) schema[part] = object;
  }
  if (body !== undefined) schema.body = body;
  if (requestBody !== undefined) schema['x-request-body'] = requestBody;
  schema['x-responses'] =
    options.allow === undefined
      ? responses
      : { ...responses, ...problems(['method-not-allowed'], { Allow: ALLOW_HEADER(options.allow) }) };
  if (path !== undefined) schema['x-path'] = path;
  return schema;
}

export interface RouteSchemaOptions {
  /** The methods the route's path answers: every other is a 405 naming them in Allow. */
  allow?: string;
}

const ALLOW_HEADER = (allow: string): Json => ({
  description: `The methods this path answers: ${allow}.`,
  schema: { type: 'string', examples: [allow] },
});

/** OpenAPI parameters as the JSON Schema object Fastify takes (and @fastify/swagger turns back). */
function parametersSchema(parameters: OperationDoc['parameters'] & object): Json | null {
  if (parameters.length === 0) return null;
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const p of parameters) {
    properties[p.name] = {
      ...p.schema,
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.example === undefined ? {} : { examples: [p.example] }),
    };
    if (p.required === true) required.push(p.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

const compiled = new WeakMap<object, (value: unknown) => true | { error: Error }>();

/**
 * Fastify's validator compiler: a JSON body under /api/ is checked against its TypeBox schema
 * (compiled once per schema) and a failure is the API's 400 `invalid-parameters`, its fields
 * named by JSON pointer with reasons in words (src/schemas/schema-errors.ts). Everything else a
 * route's schema says (path, query, headers, the console's forms) documents: those are checked
 * where their words are (v1 C4, the console's pages).
 */
export function validateFromRouteSchemas(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart, url }) => {
    if (httpPart !== 'body' || !url.startsWith('/api/')) return () => true;
    let check = compiled.get(schema);
    if (check === undefined) {
      const c = Compile(schema as TSchema);
      check = (value) => {
        if (c.Check(value)) return true;
        const found = describeErrors(schema, c.Errors(value) as SchemaError[]);
        return {
          error: invalidParams(
            found.map((p) => ({ name: p.pointer, reason: p.reason })),
            found.map((p) => p.sentence).join('; '),
          ),
        };
      };
      compiled.set(schema, check);
    }
    return check;
  });
}

/**
 * The request's body, checked against the route's `body` schema: its 400 is thrown here, where
 * the handler asks for it, so an unknown key is still a 401 and a refused role a 403 before any
 * word about the body (the route sets `attachValidation`).
 */
export function validBody<T extends TSchema>(request: FastifyRequest, schema: T): Static<T> {
  if (request.routeOptions.schema?.body !== schema)
    throw new Error(`validBody: ${request.routeOptions.url} does not declare this body schema`);
  if (request.validationError !== undefined && request.validationError !== null)
    throw request.validationError;
  return request.body as Static<T>;
}
