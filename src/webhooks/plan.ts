import { formatInstant } from '../shared/instant.js';
import { endpointWants } from './delivery.js';
import {
  type DisabledEndpoint,
  type Endpoint,
  endpointDisabledPayload,
  eventEnvelope,
  thinEnvelope,
  type WebhookEvent,
} from './webhook.js';

/** A delivery about to be stored: one event to one endpoint, its body rendered. */
export interface PlannedDelivery {
  eventId: string;
  endpointId: string;
  teamId: number;
  type: string;
  payload: string;
  createdAt: number;
}

/** A member's current subteams, as the store answers (`team member` → subteam ids). */
export type SubteamsOf = (teamId: number, memberId: number) => number[];

/**
 * The deliveries a batch of outbox events makes (both engines): each event goes to the enabled
 * endpoints of its own team that take it. An event whose lead is no longer the team's (its
 * member moved) goes nowhere: a team never receives a lead it does not hold.
 */
export function planDeliveries(
  events: WebhookEvent[],
  endpoints: Endpoint[],
  subteamsOf: SubteamsOf,
): PlannedDelivery[] {
  const out: PlannedDelivery[] = [];
  for (const event of events) {
    if (event.lead === null) continue;
    const lead = event.lead;
    // Rendered at most three times: thin; full with the previous values, and without.
    const payloads = new Map<string, string>();
    for (const e of endpoints) {
      // An endpoint receives the leads stored after it was registered, not those waiting before.
      if (e.teamId !== event.teamId || e.createdAt > event.createdAt) continue;
      const subteams = e.subteams === null ? [] : subteamsOf(event.teamId, lead.userId);
      if (!endpointWants(e, event.type, lead.userId, subteams)) continue;
      const withPrevious = event.type === 'lead.updated' && e.includePrevious;
      const form = e.payload === 'thin' ? 'thin' : withPrevious ? 'previous' : 'full';
      let payload = payloads.get(form);
      if (payload === undefined) {
        payload = JSON.stringify(
          form === 'thin' ? thinEnvelope(event, lead.uuid) : eventEnvelope(event, lead, withPrevious),
        );
        payloads.set(form, payload);
      }
      out.push({
        eventId: event.id,
        endpointId: e.id,
        teamId: event.teamId,
        type: event.type,
        payload,
        createdAt: event.createdAt,
      });
    }
  }
  return out;
}

/** The body of a test event: `webhook.test`, naming the endpoint. */
export function testPayload(endpointId: string, now: number): string {
  return JSON.stringify({ type: 'webhook.test', timestamp: formatInstant(now), data: { endpointId } });
}

/**
 * The `webhook.endpoint.disabled` deliveries for an endpoint leadline disabled (docs/webhooks.md
 * "When leadline disables an endpoint"): one event, `eventId`, to each of `others` — the team's
 * endpoints as stored — that is enabled, is not the disabled one, and takes the type.
 */
export function disabledNotices(
  d: DisabledEndpoint,
  eventId: string,
  others: Pick<Endpoint, 'id' | 'enabled' | 'eventTypes' | 'payload'>[],
): PlannedDelivery[] {
  return others
    .filter((o) => o.id !== d.endpointId && o.enabled && o.eventTypes.includes('webhook.endpoint.disabled'))
    .map((o) => ({
      eventId,
      endpointId: o.id,
      teamId: d.teamId,
      type: 'webhook.endpoint.disabled',
      payload: endpointDisabledPayload(d, o.payload),
      createdAt: d.at,
    }));
}
