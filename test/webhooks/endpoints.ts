import type { Store } from '../../src/store.js';
import type { Endpoint, NewEndpoint } from '../../src/webhooks/webhook.js';

/**
 * Registers a webhook endpoint for `teamId` straight in the store, as the webhook and console
 * tests set one up: `lead.created` for every member and subteam, at `https://receiver.example/hooks`
 * with the secret `whsec_test`, created now; `options` change any of these. The team (and its
 * members) must have been imported first.
 */
export function endpointFor(
  store: Store,
  teamId: number,
  options: Partial<Omit<NewEndpoint, 'teamId'>> = {},
): Promise<Endpoint> {
  return store.webhooks.addEndpoint({
    teamId,
    url: 'https://receiver.example/hooks',
    description: null,
    eventTypes: ['lead.created'],
    members: null,
    subteams: null,
    secret: 'whsec_test',
    createdAt: Date.now(),
    ...options,
  });
}
