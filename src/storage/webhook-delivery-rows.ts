import type { ClaimedDelivery, DeliveryRecord } from '../domain/webhook-delivery.js';
import type { AttemptRow, ClaimRow, DeliveryRow } from './webhook-dispatch.js';

/** Delivery rows → domain objects, for both engines: rows stop here. */

export function toClaimed(r: ClaimRow): ClaimedDelivery {
  return {
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    teamId: Number(r.team_id),
    url: r.url,
    payload: r.payload,
    attempt: r.attempts,
    secrets: { current: r.secret, previous: r.previous_secret, previousUntil: r.previous_secret_until },
    failingSince: r.failing_since,
  };
}

export function toDeliveryRecords(rows: DeliveryRow[], attempts: AttemptRow[]): DeliveryRecord[] {
  const byDelivery = new Map<number, AttemptRow[]>();
  for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    type: r.type,
    state: r.state,
    createdAt: r.created_at,
    nextAttemptAt: r.next_attempt_at,
    finishedAt: r.finished_at,
    attempts: (byDelivery.get(r.id) ?? []).map((a) => ({
      at: a.attempted_at,
      status: a.status,
      latencyMs: a.latency_ms,
      answer: a.answer,
    })),
  }));
}
