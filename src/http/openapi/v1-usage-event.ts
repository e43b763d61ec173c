import { type Json, json, ref } from './build.js';

/** The `v1.usage` entry of the document's `webhooks` section (webhook-events.ts gives the signature headers). */
export function v1UsageEvent(signatureHeaders: Record<string, Record<string, unknown>>): Json {
  return {
    post: {
      operationId: 'v1Usage',
      tags: ['webhooks'],
      summary: 'Once a day while the team’s keys still call v1: what they called yesterday',
      description:
        'Only to enabled endpoints that list `v1.usage` in `eventTypes` (member and subteam filters do not apply: it is about keys, not leads). One per team and UTC day at most, soon after the day is over, reporting that day’s v1 calls; none follows a day without v1 calls. Keys by id, prefix and label, members by id: no personal data. Delivered, retried and signed like every event ([moving off v1](/docs/v1-migration#notices)).',
      parameters: Object.entries(signatureHeaders).map(([name, h]) => ({ name, in: 'header', ...h })),
      requestBody: {
        required: true,
        content: json(ref('V1UsageEvent'), {
          type: 'v1.usage',
          timestamp: '2026-11-03T00:10:00.000Z',
          data: {
            day: '2026-11-02',
            keys: [
              {
                keyId: 12,
                prefix: 'llk_3FqK9xTm',
                label: 'CRM sync',
                memberId: 701,
                calls: [
                  {
                    operation: 'getLastLeadTeam',
                    count: 1440,
                    successor: {
                      method: 'POST',
                      path: '/api/pub/v2/leads/search',
                      body: {
                        filters: { teamId: 7 },
                        sort: { field: 'timestamp', direction: 'DESC' },
                        limit: 1,
                      },
                    },
                  },
                ],
              },
            ],
            nextBrownout: {
              startsAt: '2026-11-12T09:00:00.000Z',
              endsAt: '2026-11-12T10:00:00.000Z',
              keyIds: null,
            },
            sunsetAt: '2027-03-01T00:00:00.000Z',
            migrationGuide: 'https://leadline.example.com/docs/v1-migration',
          },
        }),
      },
      responses: { '200': { description: 'Received (any 2xx).' } },
    },
  };
}
