import type { CarriedDelivery } from '../privacy/privacy.port.js';

/**
 * A delivery of an event about a lead, as both engines select it (docs/privacy.md "Subject
 * access"): the event, its delivery, the endpoint's URL, and the delivery's last attempt.
 */
export const CARRIED_COLUMNS = `e.lead_seq, e.id, e.type, d.endpoint_id, ep.url, d.created_at, d.state, d.attempts,
  (SELECT max(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id)`;

/** The event's deliveries, to the team's own endpoints only. */
export const CARRIED_FROM = `webhook_events e
  JOIN webhook_deliveries d ON d.event_id = e.id AND d.team_id = e.team_id
  JOIN webhook_endpoints ep ON ep.id = d.endpoint_id AND ep.team_id = e.team_id`;

export type CarriedRow = [
  leadSeq: number,
  eventId: string,
  type: string,
  endpointId: string,
  url: string,
  createdAt: number,
  state: CarriedDelivery['state'],
  attempts: number,
  lastAttemptAt: number | null,
];

export function toCarried(r: CarriedRow): CarriedDelivery {
  return {
    leadSeq: Number(r[0]),
    eventId: String(r[1]),
    type: r[2],
    endpointId: String(r[3]),
    endpointUrl: r[4],
    createdAt: Number(r[5]),
    state: r[6],
    attempts: Number(r[7]),
    lastAttemptAt: r[8] === null ? null : Number(r[8]),
  };
}
