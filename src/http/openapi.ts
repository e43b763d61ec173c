import { V1Lead } from '../schemas/v1-lead.js';
import { CreateBody, SearchBody, V2Lead } from '../schemas/v2.js';
import { V2Me } from '../schemas/v2-me.js';
import {
  LeadCreatedEvent,
  WebhookCreateBody,
  WebhookEndpoint,
  WebhookUpdateBody,
} from '../schemas/webhooks.js';
import { HEADERS } from './openapi/build.js';
import { consolePaths } from './openapi/console.js';
import { pagePaths } from './openapi/pages.js';
import { servicePaths } from './openapi/service.js';
import { v1Paths } from './openapi/v1.js';
import { v2Paths } from './openapi/v2.js';
import { webhookEvents } from './openapi/webhook-events.js';
import { webhookPaths } from './openapi/webhooks.js';

/**
 * The OpenAPI 3.1 document of everything the server answers — v1 (deprecated), v2, the admin
 * report, health and pages — built from the same TypeBox schemas the routes validate with (3.1
 * takes JSON Schema as is). Served at /openapi.json and committed as docs/openapi.json
 * (`npm run openapi`); tests fail when it drifts, when a route of the app is missing from it,
 * or when an example does not match its schema.
 */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'leadline API',
      // The version of the interface this document describes (v2), not the leadline release's
      // (package.json, CHANGELOG.md): Redoc shows it beside the title, so the description says so.
      version: '2.0.0',
      summary: 'Leads collected by a digital business-card service, for CRMs and automations.',
      description:
        'API version 2.0.0: the version of the interface this document describes (v2), not of the leadline release that serves it (its CHANGELOG). v2 searches, reads, follows and creates leads ([v2 guide](/docs/v2)). v1, five GET operations, is deprecated and being retired: each v1 operation names the v2 request that replaces it ([moving off v1](/docs/v1-migration)).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This leadline.' }],
    tags: [
      { name: 'v2', description: 'The lead interface: search, changes, get, create.' },
      {
        name: 'webhooks',
        description: 'Signed lead events pushed to a team’s endpoints ([webhooks guide](/docs/webhooks)).',
      },
      {
        name: 'v1 (deprecated)',
        description:
          'The v1 lead retrieval interface, deprecated: new integrations use v2. Every answer carries Deprecation and Link (and Sunset once set).',
      },
      { name: 'admin', description: 'The retirement of v1, for team admins.' },
      { name: 'service', description: 'Health, readiness, metrics, documentation pages.' },
      {
        name: 'console',
        description:
          'The admin console’s pages and forms, for people ([console guide](/docs/console)): a session cookie from a sign-in link, not an API key.',
      },
    ],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
        v1Key: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'v1 also takes the key alone: `Authorization: <key>`. Never in the query string.',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'LEADLINE_METRICS_TOKEN.' },
      },
      schemas: {
        SearchBody: strip(SearchBody),
        CreateBody: strip(CreateBody),
        V2Lead: strip(V2Lead),
        V2Me: strip(V2Me),
        V1Lead: strip(V1Lead),
        WebhookEndpoint: strip(WebhookEndpoint),
        WebhookCreateBody: strip(WebhookCreateBody),
        WebhookUpdateBody: strip(WebhookUpdateBody),
        LeadCreatedEvent: strip(LeadCreatedEvent),
        Problem: PROBLEM,
      },
      headers: HEADERS,
    },
    security: [{ apiKey: [] }],
    paths: {
      ...v2Paths(),
      ...webhookPaths(),
      ...v1Paths(),
      ...servicePaths(),
      ...pagePaths(),
      ...consolePaths(),
    },
    webhooks: webhookEvents(),
  };
}

const PROBLEM = {
  type: 'object',
  description: 'RFC 9457 problem details: every error of every operation.',
  required: ['type', 'title', 'status', 'detail', 'instance'],
  properties: {
    type: {
      type: 'string',
      description: 'A URI per kind of error: /problems/<code>, a page that explains it.',
    },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'What went wrong, for a person.' },
    instance: { type: 'string', description: 'The request id (X-Request-Id).' },
    invalid_params: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, reason: { type: 'string' } } },
    },
    successor: {
      type: 'object',
      description: 'v1 retirement problems: the v2 request that replaces the call.',
    },
  },
  examples: [
    {
      type: 'https://leads.example.com/problems/invalid-parameters',
      title: 'Invalid parameters',
      status: 400,
      detail: 'start: must be a decimal integer without sign, fraction or exponent',
      instance: '608ef365-2754-4909-98dc-118ff03e12f0',
      invalid_params: [
        { name: 'start', reason: 'must be a decimal integer without sign, fraction or exponent' },
      ],
    },
  ],
};

/** A TypeBox schema as plain JSON Schema (its symbol-keyed metadata dropped). */
function strip(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}
