/**
 * A browser app importing each entry point of @leadline/client (see tsconfig.json here): it
 * must typecheck without Node's types, declaration files included.
 */
import { createLeadline, type Lead, LeadlineError } from '@leadline/client';
import { createLeadlineV1, type V1Lead } from '@leadline/client/v1';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@leadline/client/webhooks';

const leadline = createLeadline({ baseUrl: location.origin, apiKey: 'key' });
const v1 = createLeadlineV1({ baseUrl: location.origin, apiKey: 'key' });

export async function firstLead(teamId: number): Promise<Lead | V1Lead | undefined> {
  try {
    for await (const lead of leadline.leads.search({ filters: { teamId } })) return lead;
    return undefined;
  } catch (err) {
    if (err instanceof LeadlineError) return undefined;
    throw err;
  }
}

export async function received(request: Request, secret: string): Promise<WebhookEvent | null> {
  try {
    return verifyWebhook(secret, await request.text(), request.headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return null;
    throw err;
  }
}

/** The lead an event carries as it is now, told apart by `type`; null for a merge or a test. */
export function leadOf(event: WebhookEvent): Lead | null {
  if (event.type === 'lead.created') return event.data;
  if (event.type === 'lead.updated') return event.data.lead;
  return null;
}

export { v1 };
