import { COMMON_HEADERS, headerRef, type Json, json, problems, QUOTA_HEADERS } from './build.js';

/**
 * The rest of what the server answers, in the OpenAPI document: the admin report API, health
 * and readiness, and the pages (docs, problem types, this document; the console's: console.ts).
 */

const html = (description: string): Json => ({
  description,
  headers: COMMON_HEADERS,
  content: { 'text/html': { schema: { type: 'string' } } },
});

const REPORT = {
  type: 'object',
  required: ['windowDays', 'keys', 'v1CallsByDay'],
  properties: {
    windowDays: { type: 'integer', description: 'The window the report covers, in UTC days ending today.' },
    keys: {
      type: 'array',
      description: 'The team’s keys and their use of v1 and v2 in the window (as `leadline v1 report`).',
      items: {
        type: 'object',
        required: ['keyId', 'memberId', 'status', 'v1Calls', 'v2Calls'],
        properties: {
          keyId: { type: 'integer' },
          memberId: { type: 'integer' },
          status: { type: 'string', description: 'Where the key stands in the migration off v1.' },
          v1Calls: { type: 'integer' },
          v1ByOperation: { type: 'object', additionalProperties: { type: 'integer' } },
          v1LastSeen: { type: ['string', 'null'], format: 'date-time' },
          userAgent: { type: ['string', 'null'] },
          v2Calls: { type: 'integer' },
        },
      },
    },
    v1CallsByDay: {
      type: 'array',
      items: {
        type: 'object',
        required: ['day', 'calls'],
        properties: { day: { type: 'string', format: 'date' }, calls: { type: 'integer' } },
      },
    },
  },
};

const STATUS = (values: string[]) => ({
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: values } },
});

export function servicePaths(): Record<string, Json> {
  return {
    '/api/admin/v1/report': {
      get: {
        operationId: 'v1Report',
        tags: ['admin'],
        summary: 'The v1 retirement report of the caller’s team (team admins)',
        description:
          'Every key of the team with its v1 and v2 calls in the window, and the team’s v1 calls per day: the data of the admin page and of `leadline v1 report`.',
        parameters: [
          {
            name: 'days',
            in: 'query',
            required: false,
            description: 'The window in UTC days ending today (default 30).',
            schema: { type: 'integer', minimum: 1, maximum: 3660, default: 30 },
          },
        ],
        responses: {
          '200': {
            description: 'The report.',
            headers: { ...COMMON_HEADERS, ...QUOTA_HEADERS, 'Cache-Control': headerRef('CacheControl') },
            content: json(REPORT),
          },
          ...problems([
            'invalid-parameters',
            'forbidden',
            'unauthorized',
            'rate-limited',
            'auth-throttled',
            'store-unavailable',
          ]),
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['service'],
        summary: 'Liveness: the process answers',
        security: [],
        responses: {
          '200': {
            description: 'Alive.',
            headers: COMMON_HEADERS,
            content: json(STATUS(['ok']), { status: 'ok' }),
          },
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        tags: ['service'],
        summary: 'Readiness: the store answers (a load balancer’s check)',
        description:
          '`replica` (with DATABASE_READ_URL) and `redis` (with REDIS_URL) report those parts; Redis down leaves the instance ready, its counters fall back to memory.',
        security: [],
        responses: {
          '200': {
            description: 'Ready.',
            headers: COMMON_HEADERS,
            content: json(
              {
                ...STATUS(['ready']),
                properties: {
                  status: { type: 'string', enum: ['ready'] },
                  replica: { type: 'object', description: 'The read replica’s state and lag.' },
                  redis: { type: 'string', enum: ['up', 'down'] },
                },
              },
              { status: 'ready' },
            ),
          },
          ...problems(['store-unavailable']),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openApiDocument',
        tags: ['service'],
        summary: 'This document',
        security: [],
        responses: {
          '200': { description: 'OpenAPI 3.1.', headers: COMMON_HEADERS, content: json({ type: 'object' }) },
        },
      },
    },
    '/problems/{code}': {
      get: {
        operationId: 'problemPage',
        tags: ['service'],
        summary: 'What a problem type means: each problem’s `type` URI is this page',
        security: [],
        parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': html('The page.'), ...problems(['not-found']) },
      },
    },
    '/docs': {
      get: {
        operationId: 'apiReference',
        tags: ['service'],
        summary: 'This document as a page to read (Redoc, served from the server’s own files)',
        security: [],
        responses: { '200': html('The page.') },
      },
    },
    '/docs/{page}': {
      get: {
        operationId: 'docPage',
        tags: ['service'],
        summary: 'A page of the documentation (HTML; the Markdown source with Accept: text/markdown)',
        security: [],
        parameters: [{ name: 'page', in: 'path', required: true, schema: { type: 'string' }, example: 'v2' }],
        responses: { '200': html('The page.'), ...problems(['not-found']) },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['service'],
        summary: 'Prometheus metrics (only with LEADLINE_METRICS_TOKEN; or on LEADLINE_METRICS_PORT instead)',
        description:
          'Off by default. With `LEADLINE_METRICS_TOKEN` set, served here to `Authorization: Bearer <token>` only; with `LEADLINE_METRICS_PORT`, on a listener of its own. The metrics: docs/operations.md.',
        security: [{ metricsToken: [] }],
        responses: {
          '200': {
            description: 'The Prometheus text format.',
            headers: COMMON_HEADERS,
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...problems(['unauthorized']),
        },
      },
    },
    '/assets/{file}': {
      get: {
        operationId: 'pageAsset',
        tags: ['service'],
        summary: 'The pages’ style sheet and scripts',
        security: [],
        parameters: [
          { name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'leadline.css' },
        ],
        responses: {
          '200': {
            description: 'The file.',
            headers: COMMON_HEADERS,
            content: {
              'text/css': { schema: { type: 'string' } },
              'text/javascript': { schema: { type: 'string' } },
            },
          },
          ...problems(['not-found']),
        },
      },
    },
    '/admin': {
      get: {
        operationId: 'adminPage',
        tags: ['service'],
        summary: 'The former admin page: on to the console’s v1 view (docs/console.md)',
        security: [],
        responses: {
          '301': {
            description: 'Moved to /console/v1.',
            headers: { ...COMMON_HEADERS, Location: { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}
