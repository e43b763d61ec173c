import type { Json } from './build.js';
import { op, page, refusals, team } from './console-parts.js';

/** The console's lead page (docs/console.md, "Lead page"): search by e-mail, one lead's history. */

export function consoleLeadOperations(): Json[] {
  return [
    op('consoleLeads', 'Console: find the team’s leads by e-mail', {
      parameters: [
        team,
        {
          name: 'email',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 320 },
          description:
            'The e-mail to find: trimmed, compared without case (as v2’s EXACT search folds text), whole. Merged leads are listed too, marked.',
          example: 'anna@example.com',
        },
      ],
      responses: { '200': page('The search form, and the leads with that e-mail.'), ...refusals },
    }),
    op('consoleLead', 'Console: one lead, its merges and its history of changes', {
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          schema: { type: 'string', format: 'uuid' },
          description: 'The lead’s v2 `leadId`.',
        },
        team,
      ],
      responses: {
        '200': page(
          'The lead’s current values (v2 shape), version, last change, the leads merged into it (or the lead it was merged into) and its history as far back as the webhook event retention.',
        ),
        ...refusals,
      },
    }),
  ];
}
