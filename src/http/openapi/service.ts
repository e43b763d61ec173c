import {
  COMMON_HEADERS,
  headerRef,
  type Json,
  json,
  keyedProblems,
  problems,
  QUOTA_HEADERS,
} from './build.js';

/**
 * The rest of what the server answers, in the OpenAPI document: the admin report API, health
 * and readiness, and the pages (docs, problem types, this document; the console's: console.ts).
 */

const _html = (description: string): Json => ({
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
          v1Served: { type: 'integer', description: 'v1 calls answered (status below 400).' },
          v1Refused: {
            type: 'integer',
            description: 'v1 calls refused (frozen out, brownout, sunset, errors).',
          },
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

export function serviceOperations(): Json[] {
  return [
    {
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
        ...keyedProblems([
          'invalid-parameters',
          'forbidden',
          'unauthorized',
          'rate-limited',
          'auth-throttled',
          'store-unavailable',
        ]),
      },
    },
    {
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
    {
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
    {
      operationId: 'metrics',
      tags: ['service'],
      summary: 'Prometheus metrics (only with LEADLINE_METRICS_TOKEN; or on LEADLINE_METRICS_PORT instead)',
      description:
        'Off by default. With `LEADLINE_METRICS_TOKEN` set, served here to `Authorization: Bearer <token>` only; with `LEADLINE_METRICS_PORT`, on a listener of its own. The metrics: [operations guide](/docs/operations).',
      security: [{ metricsToken: [] }],
      responses: {
        '200': {
          description: 'The Prometheus text format.',
          headers: COMMON_HEADERS,
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...problems(['unauthorized']),
        '404': {
          ...problems(['not-found'])['404'],
          description:
            '`not-found`: no LEADLINE_METRICS_TOKEN is set, so the API port serves no metrics (LEADLINE_METRICS_PORT may).',
        },
      },
    },
  ];
}
