import type { LeadScope } from '../leads/leads.port.js';
import type {
  Endpoint,
  EndpointChanges,
  EndpointOwner,
  LoggedEventType,
  NewEndpoint,
  SigningSecrets,
  WebhookEvent,
} from './webhook.js';

/**
 * What the webhooks slice needs from a store: endpoints and their events.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

/**
 * Webhook endpoints and the outbox (domain/webhook.ts). The outbox is written by the stores'
 * lead writes themselves (v2 creation, import), in the transaction that stores each lead.
 */
export interface WebhookStore {
  /**
   * Stores an endpoint; every lead entering its team from then on gets a `lead.created` event.
   * Throws EndpointLimitReached, storing nothing, when the team has `maxPerTeam` endpoints
   * already — counted and stored at once: two registrations cannot both take the last place.
   */
  addEndpoint(endpoint: NewEndpoint, maxPerTeam?: number): Promise<Endpoint>;
  /** The team's endpoints (null: every team's), oldest first. */
  endpoints(teamId: number | null): Promise<Endpoint[]>;
  /** The endpoint if the owner may see it (another team's is null, as a missing one). */
  endpoint(owner: EndpointOwner, id: string): Promise<Endpoint | null>;
  updateEndpoint(
    owner: EndpointOwner,
    id: string,
    changes: EndpointChanges,
    at: number,
  ): Promise<Endpoint | null>;
  /** Removes the endpoint with everything waiting for it; false when the owner has no such endpoint. */
  removeEndpoint(owner: EndpointOwner, id: string): Promise<boolean>;
  /**
   * Makes `secret` (stored form) the endpoint's signing secret; the one before keeps signing too
   * until `previousUntil`.
   */
  rotateSecret(
    owner: EndpointOwner,
    id: string,
    secret: string,
    previousUntil: number,
    at: number,
  ): Promise<Endpoint | null>;
  /** The endpoint's signing secrets in their stored form (possibly sealed); null when no such endpoint. */
  signingSecrets(id: string): Promise<SigningSecrets | null>;
  /** The team's outbox events after position `afterSeq`, in outbox order, each with its lead as stored now. */
  events(teamId: number, afterSeq: number, limit: number): Promise<WebhookEvent[]>;
  /**
   * A page of the event log (docs/v2.md "Events"): the events after `after` (an opaque position
   * this method returned; null: the oldest kept) that `q` lets through, in log order — commit
   * order: on PostgreSQL only events of transactions older than every one still running. `expired`:
   * events after `after` were pruned (LEADLINE_EVENT_RETENTION_DAYS), no events are returned.
   */
  log(q: EventLogQuery): Promise<EventLogPage>;
}

export interface EventLogQuery {
  /** Lead events of leads in this scope (their team and, when given, members/subteams). */
  scope: LeadScope;
  /** Whether team-level events (webhook.test, v1.usage) are let through. */
  teamEvents: boolean;
  /** Only these types; null: every type. */
  types: readonly LoggedEventType[] | null;
  after: string | null;
  limit: number;
}

export interface EventLogPage {
  events: WebhookEvent[];
  /** Each event's own position (what `after` takes to go on after it), in step with `events`. */
  positions: string[];
  /** Where the next page starts: after the last event read (let through or not). */
  next: string;
  expired: boolean;
}
