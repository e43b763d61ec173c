import type { Json } from './build.js';
import { form, op, page, refusals, team } from './console-parts.js';

/** The console's Privacy view (docs/console.md) in the OpenAPI document: the team's retention policy. */
export function consolePrivacyOperations(): Json[] {
  return [
    op('consolePrivacy', 'Console: the team’s privacy settings (its retention policy)', {
      parameters: [team],
      responses: { '200': page('The Privacy view.'), ...refusals },
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
