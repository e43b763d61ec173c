import type { ClaimedDelivery, DeliveryRecord } from '../webhooks/delivery.js';

/** Delivery rows, their columns, and rows → domain objects, for both engines: rows stop here. */

/** A delivery row as both engines read it for listings. */
export interface DeliveryRow {
  id: number;
  event_id: string;
  endpoint_id: string;
  type: string;
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
  created_at: number;
  next_attempt_at: number | null;
  finished_at: number | null;
}

export interface AttemptRow {
  delivery_id: number;
  attempted_at: number;
  status: number | null;
  latency_ms: number;
  answer: string;
}

export const DELIVERY_COLUMNS =
  'id, event_id, endpoint_id, type, state, created_at, next_attempt_at, finished_at';
export const ATTEMPT_COLUMNS = 'delivery_id, attempted_at, status, latency_ms, answer';

/** Claimed delivery columns: d is webhook_deliveries, e its endpoint. */
export const CLAIM_COLUMNS = `d.id, d.event_id, d.endpoint_id, d.team_id, e.url, d.payload, d.attempts, e.secret,
  e.previous_secret, e.previous_secret_until, e.failing_since`;

export interface ClaimRow {
  id: number;
  event_id: string;
  endpoint_id: string;
  team_id: number;
  url: string;
  payload: string;
  attempts: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  failing_since: number | null;
}

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
