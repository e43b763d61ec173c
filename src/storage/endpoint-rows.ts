import type { LeadEvent, LeadValues } from '../leads/leads.port.js';
import type {
  Endpoint,
  EndpointChanges,
  EndpointOwner,
  EventChange,
  EventType,
  LoggedEventType,
  WebhookEvent,
} from '../webhooks/webhook.js';
import { LEAD_COLUMNS, type LeadRow, toLead } from './rows.js';

/** Webhook rows as both engines store them (migration 5), and their one mapping: rows stop here. */

export const ENDPOINT_COLUMNS = `id, team_id, url, description, event_types, member_ids, subteam_ids, enabled,
  disabled_reason, created_at, updated_at, created_via, created_by_member, created_by_key, include_previous, payload,
  EXISTS (SELECT 1 FROM members m WHERE m.id = webhook_endpoints.created_by_member
    AND m.team_id = webhook_endpoints.team_id) AS creator_in_team,
  EXISTS (SELECT 1 FROM api_keys k WHERE k.id = webhook_endpoints.created_by_key
    AND k.revoked_at IS NULL) AS creator_key_live`;

export interface EndpointRow {
  id: string;
  team_id: number;
  url: string;
  description: string | null;
  event_types: string;
  member_ids: string | null;
  subteam_ids: string | null;
  enabled: number | boolean;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
  created_via: 'api' | 'cli' | null;
  created_by_member: number | null;
  created_by_key: number | null;
  include_previous: number | boolean;
  payload: string;
  creator_in_team: number | boolean;
  creator_key_live: number | boolean;
}

const list = (text: string | null): number[] | null =>
  text === null ? null : (JSON.parse(text) as number[]);

export function toEndpoint(r: EndpointRow): Endpoint {
  return {
    id: r.id,
    teamId: r.team_id,
    url: r.url,
    description: r.description,
    eventTypes: JSON.parse(r.event_types) as EventType[],
    members: list(r.member_ids),
    subteams: list(r.subteam_ids),
    enabled: r.enabled === 1 || r.enabled === true,
    disabledReason: r.disabled_reason,
    createdBy:
      r.created_via === null
        ? null
        : {
            via: r.created_via,
            memberId: r.created_by_member,
            keyId: r.created_by_key,
            memberRemoved: r.created_by_member !== null && !truth(r.creator_in_team),
            keyRevoked: r.created_by_key !== null && !truth(r.creator_key_live),
          },
    includePrevious: truth(r.include_previous),
    payload: r.payload === 'thin' ? 'thin' : 'full',
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const truth = (v: number | boolean): boolean => v === 1 || v === true;

/** The team an owner is limited to; null: every team (the operator). */
export const ownerTeam = (owner: EndpointOwner): number | null =>
  owner === 'operator' ? null : owner.teamId;

/** The endpoint after `changes`: enabling clears why it was disabled and its failing streak. */
export function changed(e: Endpoint, c: EndpointChanges): Endpoint & { failingSinceReset: boolean } {
  const enabling = c.enabled === true && !e.enabled;
  return {
    ...e,
    url: c.url ?? e.url,
    description: c.description !== undefined ? c.description : e.description,
    eventTypes: c.eventTypes ?? e.eventTypes,
    members: c.members !== undefined ? c.members : e.members,
    subteams: c.subteams !== undefined ? c.subteams : e.subteams,
    enabled: c.enabled ?? e.enabled,
    includePrevious: c.includePrevious ?? e.includePrevious,
    payload: c.payload ?? e.payload,
    disabledReason: enabling ? null : c.enabled === false ? null : e.disabledReason,
    failingSinceReset: enabling,
  };
}

/** A list column's text: JSON, or NULL for "no filter". */
export const listText = (ids: number[] | null): string | null => (ids === null ? null : JSON.stringify(ids));

/**
 * An event and its lead (LEAD_COLUMNS, all null when the lead is no longer the team's, or for a
 * team-level event: `body`, its rendered envelope, instead).
 */
export const EVENT_COLUMNS = `e.seq AS event_seq, e.id AS event_id, e.type, e.team_id, e.created_at AS event_at, e.data, e.body, ${LEAD_COLUMNS}`;
/** What an event's row is read with: its lead and the lead's member. */
export const EVENT_JOINS = `LEFT JOIN leads l ON l.team_id = e.team_id AND l.seq = e.lead_seq
  LEFT JOIN members m ON m.id = l.member_id`;
export const EVENT_FROM = `webhook_events e
  ${EVENT_JOINS}`;

export type EventRow = [
  number | string,
  string,
  LoggedEventType,
  number,
  number | string,
  string | null,
  string | null,
  ...LeadRow,
];

export function toWebhookEvent(r: EventRow): WebhookEvent {
  const lead = r.slice(7) as unknown as LeadRow;
  return {
    seq: Number(r[0]),
    id: r[1],
    type: r[2],
    teamId: Number(r[3]),
    createdAt: Number(r[4]),
    lead: lead[0] === null ? null : toLead(lead),
    change: r[5] === null ? null : toEventChange(JSON.parse(r[5]) as EventChange),
    body: r[6],
  };
}

/** The stored change as the domain has it: SQLite's JSON gives booleans as 0/1. */
function toEventChange(c: EventChange): EventChange {
  const values = (v: LeadValues | undefined) =>
    v === undefined
      ? undefined
      : { ...v, locationShared: (v.locationShared as unknown) === 1 || v.locationShared === true };
  const out: EventChange = { source: c.source };
  if (c.before !== undefined) out.before = values(c.before);
  if (c.after !== undefined) out.after = values(c.after);
  if (c.mergedInto !== undefined) out.mergedInto = c.mergedInto;
  if (c.version !== undefined) out.version = c.version;
  return out;
}

/** An outbox row about a lead as the console's lead page reads it (leads.port.ts LeadEvent). */
export function leadEvent(
  type: LeadEvent['type'],
  leadId: string,
  at: number | string,
  data: string | null,
): LeadEvent {
  const c = data === null ? null : toEventChange(JSON.parse(data) as EventChange);
  return {
    type,
    leadId,
    at: Number(at),
    source: c?.source ?? null,
    before: c?.before ?? null,
    after: c?.after ?? null,
    mergedInto: c?.mergedInto ?? null,
    version: type === 'lead.created' ? 1 : (c?.version ?? null),
  };
}

/** A change as the outbox stores it (webhook_events.data). */
export const eventData = (change: EventChange): string => JSON.stringify(change);
