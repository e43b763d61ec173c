import type { Json } from './build.js';
import { form, op, page, refusals, team } from './console-parts.js';

/** The console's Privacy view (docs/console.md) in the OpenAPI document: the team's retention policy. */
export function consolePrivacyOperations(): Json[] {
  return [
    op('consolePrivacy', 'Console: the team’s privacy settings (its retention policy)', {
      parameters: [team],
      responses: { '200': page('The Privacy view.'), ...refusals },
    }),
    op('consoleErasePerson', 'Console: erase a person of the team by e-mail (the receipt shown)', {
      parameters: [team],
      requestBody: form({
        email: { type: 'string', maxLength: 320, description: 'The person’s e-mail.' },
        confirm: { type: 'string', enum: ['yes'], description: 'The confirmation the form asks for.' },
      }),
      responses: { '200': page('The Privacy view with the receipt.'), ...refusals },
    }),
    op('consoleSetRetention', 'Console: set or turn off the team’s retention policy', {
      parameters: [team],
      requestBody: form({
        days: {
          type: 'string',
          pattern: '^[0-9]+$',
          description: 'Leads not changed for this many days are erased.',
        },
        clear: { type: 'string', enum: ['yes'], description: 'Turn the policy off (days is then not read).' },
      }),
      responses: { '200': page('The Privacy view, saying what was saved.'), ...refusals },
    }),
  ];
}
