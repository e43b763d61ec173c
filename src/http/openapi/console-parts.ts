import { COMMON_HEADERS, type Json } from './build.js';

/**
 * The pieces of the console's routes in the OpenAPI document (console.ts, console-webhooks.ts):
 * pages for people, not an API, so the answers are HTML pages and redirects.
 */

export const page = (description: string): Json => ({
  description,
  headers: COMMON_HEADERS,
  content: { 'text/html': { schema: { type: 'string' } } },
});
export const redirect = (to: string): Json => ({
  description: `Done: on to ${to}.`,
  headers: { ...COMMON_HEADERS, Location: { schema: { type: 'string' } } },
});
export const refusals = {
  '400': page('The form or link is not valid; the page says why.'),
  '401': page(
    'No session (signed out, idle for 30 minutes, or signed in longer ago than LEADLINE_CONSOLE_SESSION_MAX_HOURS, default 12): ask for a new sign-in link.',
  ),
  '403': page('A change without its CSRF token, or an operator-only view.'),
  '404': page(
    'Nothing there for this session (another team’s key, endpoint, delivery or team is not found either).',
  ),
};
export const team = {
  name: 'team',
  in: 'query',
  required: false,
  schema: { type: 'string', pattern: '^[0-9]+$' },
  description: 'The operator’s choice of team; a team admin always sees their own.',
};
export const days = {
  name: 'days',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1, maximum: 3660 },
};
export const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } };

export function form(properties: Record<string, Json>, required: string[] = []): Json {
  return {
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          required: ['_csrf', ...required],
          properties: { _csrf: { type: 'string' }, ...properties },
        },
      },
    },
  };
}

export function op(operationId: string, summary: string, extra: Json): Json {
  return { operationId, tags: ['console'], summary, security: [], ...extra };
}
