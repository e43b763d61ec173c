import { COMMON_HEADERS, type Json } from './build.js';
import { consoleLeadOperations } from './console-leads.js';
import { days, form, id, op, page, redirect, refusals, team } from './console-parts.js';
import { consolePrivacyOperations } from './console-privacy.js';
import { consoleWebhookOperations } from './console-webhooks.js';

/**
 * The admin console's routes (docs/console.md) in the OpenAPI document: pages for people, not an
 * API. Every one but sign-in needs the `leadline_console` session cookie (not an API key); every
 * POST but sign-in needs the form's `_csrf` token.
 */

export function consoleOperations(): Json[] {
  return [
    op('consoleHome', 'Console: on to the keys', { responses: { '303': redirect('/console/keys') } }),
    op('consoleSignInPage', 'Console: the sign-in button of a link (opening it does not spend it)', {
      parameters: [
        {
          name: 'token',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
      ],
      responses: { '200': page('The page with the Sign in button.') },
    }),
    op('consoleSignIn', 'Console: spend a sign-in link and start a session', {
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', required: ['link'], properties: { link: { type: 'string' } } },
          },
        },
      },
      responses: { '303': redirect('/console/keys (Set-Cookie: the session)'), '400': refusals['400'] },
    }),
    op('consoleSignOut', 'Console: end the session', {
      requestBody: form({}),
      responses: { '200': page('Signed out.'), ...refusals },
    }),
    op('consoleKeys', 'Console: the team’s keys', {
      parameters: [team],
      responses: { '200': page('The keys.'), ...refusals },
    }),
    op('consoleCreateKey', 'Console: create a key (the secret is on the answer, once)', {
      parameters: [team],
      requestBody: form(
        {
          member: { type: 'string' },
          label: { type: 'string' },
          expires: { type: 'string', format: 'date' },
        },
        ['member'],
      ),
      responses: { '200': page('The keys, with the new secret.'), ...refusals },
    }),
    op(
      'consoleKeyHealth',
      'Console: a key’s API health — its v1 calls, the brownout ahead, what replaces each call',
      {
        parameters: [id, team],
        responses: { '200': page('The key’s API health.'), ...refusals },
      },
    ),
    op('consoleRevokeKeyPage', 'Console: confirm revoking a key', {
      parameters: [id, team],
      responses: { '200': page('The confirmation.'), ...refusals },
    }),
    op('consoleRevokeKey', 'Console: revoke a key', {
      parameters: [id, team],
      requestBody: form({}),
      responses: { '303': redirect('/console/keys'), ...refusals },
    }),
    op('consoleLegacyV1', 'Console: grant or take back legacy v1 access (operator)', {
      parameters: [id, team],
      requestBody: form({ grant: { type: 'string', enum: ['yes', 'no'] } }),
      responses: { '303': redirect('/console/keys'), ...refusals },
    }),
    op('consoleV1', 'Console: the v1 migration (chart, keys still on v1, timeline)', {
      parameters: [team, days],
      responses: { '200': page('The v1 migration view.'), ...refusals },
    }),
    op('consoleV1Csv', 'Console: the v1 report as CSV', {
      parameters: [team, days],
      responses: {
        '200': {
          description: 'One row per key.',
          headers: COMMON_HEADERS,
          content: { 'text/csv': { schema: { type: 'string' } } },
        },
        ...refusals,
      },
    }),
    ...consoleWebhookOperations(),
    ...consoleLeadOperations(),
    ...consolePrivacyOperations(),
    op('consoleBrownouts', 'Console: brownouts (operator)', {
      responses: { '200': page('Active, scheduled and past brownouts.'), ...refusals },
    }),
    op('consoleScheduleBrownout', 'Console: schedule a brownout (operator)', {
      requestBody: form({ starts: { type: 'string' }, ends: { type: 'string' }, keys: { type: 'string' } }, [
        'starts',
        'ends',
      ]),
      responses: { '200': page('The brownouts, with the new one.'), ...refusals },
    }),
    op('consoleRemoveBrownout', 'Console: remove a brownout (operator)', {
      parameters: [id],
      requestBody: form({}),
      responses: { '303': redirect('/console/brownouts'), ...refusals },
    }),
    op('consoleAsset', 'Console: its script and styles, and uPlot’s', {
      path: '/console/assets/{file}',
      parameters: [
        { name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'console.js' },
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
        '404': page('No such file: the console’s page for an address with nothing at it.'),
      },
    }),
  ];
}
