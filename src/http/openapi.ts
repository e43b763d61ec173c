import { CreateBody, SearchBody, V2Lead } from '../schemas/v2.js';
import { V2Me } from '../schemas/v2-me.js';
import { PROBLEMS } from './problem.js';

/**
 * The OpenAPI 3.1 document of v2, built from the same TypeBox schemas the routes validate with
 * (3.1 takes JSON Schema as is). Committed as docs/openapi.json; a test fails when it drifts.
 */
export function openApiDocument(): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const problems = (...codes: (keyof typeof PROBLEMS)[]) =>
    Object.fromEntries(
      codes.map((c) => [
        String(PROBLEMS[c].status),
        {
          description: PROBLEMS[c].description,
          content: { 'application/problem+json': { schema: ref('Problem') } },
        },
      ]),
    );
  const common = problems('unauthorized', 'rate-limited', 'store-unavailable');
  const page = (extra: Record<string, unknown> = {}) => ({
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['leads', 'nextCursor', ...Object.keys(extra)],
        properties: {
          leads: { type: 'array', items: ref('V2Lead') },
          nextCursor: { type: ['string', 'null'] },
          ...extra,
        },
      },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'leadline v2',
      version: '2.0.0',
      description: 'Search, read, follow and create leads. See docs/v2.md.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
      schemas: {
        SearchBody: strip(SearchBody),
        CreateBody: strip(CreateBody),
        V2Lead: strip(V2Lead),
        V2Me: strip(V2Me),
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'instance'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
            invalid_params: {
              type: 'array',
              items: { type: 'object', properties: { name: { type: 'string' }, reason: { type: 'string' } } },
            },
          },
        },
      },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/api/pub/v2/leads/search': {
        post: {
          operationId: 'searchLeads',
          requestBody: { required: true, content: json(ref('SearchBody')) },
          responses: {
            '200': { description: 'A page of leads.', content: json(page()) },
            ...problems(
              'invalid-parameters',
              'forbidden',
              'not-found',
              'payload-too-large',
              'unsupported-media-type',
            ),
            ...common,
          },
        },
      },
      '/api/pub/v2/leads/changes': {
        get: {
          operationId: 'leadChanges',
          parameters: [
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            },
          ],
          responses: {
            '200': {
              description: 'Leads in storage order.',
              content: json(page({ pollCursor: { type: 'string' } })),
            },
            ...problems('invalid-parameters'),
            ...common,
          },
        },
      },
      '/api/pub/v2/leads/{leadId}': {
        get: {
          operationId: 'getLead',
          parameters: [
            { name: 'leadId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          ],
          responses: {
            '200': {
              description: 'The lead.',
              content: json({ type: 'object', properties: { data: ref('V2Lead') } }),
            },
            ...problems('not-found'),
            ...common,
          },
        },
      },
      '/api/pub/v2/me': {
        get: {
          operationId: 'getMe',
          responses: {
            '200': {
              description: 'The key, its member and team, and its scopes.',
              content: json(ref('V2Me')),
            },
            ...common,
          },
        },
      },
      '/api/pub/v2/leads': {
        post: {
          operationId: 'createLead',
          parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, content: json(ref('CreateBody')) },
          responses: {
            '201': {
              description: 'The lead, created (or replayed).',
              content: json({ type: 'object', properties: { data: ref('V2Lead') } }),
            },
            ...problems(
              'invalid-parameters',
              'idempotency-conflict',
              'payload-too-large',
              'unsupported-media-type',
            ),
            ...common,
          },
        },
      },
    },
  };
}

/** A TypeBox schema as plain JSON Schema (its symbol-keyed metadata dropped). */
function strip(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}
