/**
 * @leadline/client/webhooks: check that a delivery comes from leadline, with the Standard
 * Webhooks library leadline signs with (docs/webhooks.md).
 *
 *   const event = verifyWebhook(secret, await request.text(), request.headers);
 *   if (event.type === 'lead.created') save(event.data);
 *   else if (event.type === 'lead.updated') save(event.data.lead);
 *   else if (event.type === 'lead.merged') remove(event.data.leadId);
 *
 * Pass the body exactly as received (the raw text, before any JSON parsing): the signature
 * covers its bytes. A delivery whose signature, id or timestamp (more than five minutes off)
 * does not check out throws a WebhookVerificationError; answer it with a 4xx. The same
 * `webhook-id` may arrive more than once (delivery is at least once): drop repeats by it.
 */
import { WebhookVerificationError as LibraryError, Webhook } from 'standardwebhooks';
import type { components } from './openapi.js';

/**
 * What verifyWebhook throws for a delivery that does not check out: the library's own class,
 * re-exported under a type declared here, so this entry's declarations never import
 * standardwebhooks' (whose `Buffer` needs Node's types: a browser project checking its
 * libraries would fail, issue 37). `instanceof` works as with the library's class.
 */
export interface WebhookVerificationError extends Error {
  name: 'WebhookVerificationError';
}
type ErrorClass = new (message: string) => WebhookVerificationError;
export const WebhookVerificationError: ErrorClass = LibraryError as ErrorClass;
export type LeadCreatedEvent = components['schemas']['LeadCreatedEvent'];
/** A lead's values changed: `changedFields`, `previous` (endpoints with `includePrevious`), `lead` as it is now. */
export type LeadUpdatedEvent = components['schemas']['LeadUpdatedEvent'];
/** A lead was merged into `mergedInto`: it has no current view any more. */
export type LeadMergedEvent = components['schemas']['LeadMergedEvent'];
/** A test event (POST /api/pub/v2/webhooks/{endpointId}/test). */
export type WebhookTestEvent = components['schemas']['WebhookTestEvent'];
/** leadline disabled another endpoint of the team (410 Gone, or failing too long). */
export type WebhookEndpointDisabledEvent = components['schemas']['WebhookEndpointDisabledEvent'];
/** A lead event to an endpoint with `payload: "thin"`: type, time and ids only. */
export type ThinLeadEvent = components['schemas']['ThinLeadEvent'];
/** Once a UTC day while the team's keys still call v1: which keys, what they called the day before, the next brownout, the sunset. */
export type V1UsageEvent = components['schemas']['V1UsageEvent'];
/**
 * Every event leadline delivers, told apart by `type` (docs/webhooks.md "Events"): after
 * `if (event.type === 'lead.updated')` TypeScript knows `event.data.changedFields`.
 */
export type WebhookEvent =
  | LeadCreatedEvent
  | LeadUpdatedEvent
  | LeadMergedEvent
  | WebhookTestEvent
  | V1UsageEvent
  | WebhookEndpointDisabledEvent;

/** A delivery's headers: a fetch `Headers`, or a Node-style object (names in lower case). */
export type DeliveryHeaders = Headers | Record<string, string | string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The event of a delivery signed with `secret` (`whsec_…`, as creation or rotation showed it). */
export function verifyWebhook(secret: string, body: string, headers: DeliveryHeaders): WebhookEvent {
  const pick = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  const signed = Object.fromEntries(NAMES.map((n) => [n, pick(n)]));
  return new Webhook(secret).verify(body, signed) as WebhookEvent;
}
