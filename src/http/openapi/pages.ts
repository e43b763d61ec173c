import { COMMON_HEADERS, type Json, json, problems } from './build.js';

/** The pages for people in the OpenAPI document: home, docs, the reference, problem types. */

const html = (description: string): Json => ({
  description,
  headers: COMMON_HEADERS,
  content: { 'text/html': { schema: { type: 'string' } } },
});

export function pageOperations(): Json[] {
  return [
    {
      operationId: 'openApiDocument',
      tags: ['service'],
      summary: 'This document',
      security: [],
      responses: {
        '200': { description: 'OpenAPI 3.1.', headers: COMMON_HEADERS, content: json({ type: 'object' }) },
      },
    },
    {
      operationId: 'problemPage',
      tags: ['service'],
      summary: 'What a problem type means: each problem’s `type` URI is this page',
      security: [],
      parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': html('The page.'), ...problems(['not-found']) },
    },
    {
      operationId: 'home',
      tags: ['service'],
      summary: 'The home page: the README, with links to the reference, guides and console',
      security: [],
      responses: { '200': html('The page.') },
    },
    {
      operationId: 'apiReference',
      tags: ['service'],
      summary: 'This document as a page to read (Redoc, served from the server’s own files)',
      security: [],
      responses: { '200': html('The page.') },
    },
    {
      operationId: 'docPage',
      tags: ['service'],
      summary: 'A page of the documentation (HTML; the Markdown source with Accept: text/markdown)',
      security: [],
      parameters: [{ name: 'page', in: 'path', required: true, schema: { type: 'string' }, example: 'v2' }],
      responses: {
        '200': {
          ...html('The page.'),
          content: {
            'text/html': { schema: { type: 'string' } },
            'text/markdown': { schema: { type: 'string' } },
          },
        },
        ...problems(['not-found']),
      },
    },
    {
      operationId: 'pageAsset',
      tags: ['service'],
      summary: 'The pages’ style sheet and scripts',
      security: [],
      path: '/assets/{file}',
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
    {
      operationId: 'favicon',
      tags: ['service'],
      summary: 'The site’s icon (SVG), which browsers ask for on every page',
      security: [],
      responses: {
        '200': {
          description: 'The icon.',
          headers: COMMON_HEADERS,
          content: { 'image/svg+xml': { schema: { type: 'string' } } },
        },
      },
    },
    {
      operationId: 'adminPage',
      tags: ['service'],
      summary: 'The former admin page: on to the console’s v1 view',
      description: 'The report it showed is in the console ([console guide](/docs/console)).',
      security: [],
      responses: {
        '301': {
          description: 'Moved to /console/v1.',
          headers: { ...COMMON_HEADERS, Location: { schema: { type: 'string' } } },
        },
      },
    },
  ];
}
