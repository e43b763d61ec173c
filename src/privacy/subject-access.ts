import type { AuditStore } from '../audit/audit.port.js';
import { keyActor, recordAudit } from '../audit/record-audit.js';
import { type ScopeDirectory, visibleScope } from '../directory/access.js';
import type { Caller } from '../directory/directory.js';
import { normaliseEmail } from '../leads/email.js';
import type { StoredLead } from '../leads/lead.js';
import { fold } from '../leads/text.js';
import { personEmail } from './person-email.js';
import type { CarriedDelivery, PrivacyStore } from './privacy.port.js';

/**
 * Subject access (docs/privacy.md "Subject access", issue 40 item 5): every lead of one person —
 * by their e-mail, compared normalised — that the caller may see, merged ones too (they still
 * hold the person's data), each with the webhook deliveries that carried an event about it.
 * The caller's scope is the one get-by-id and the change feed use (visibleScope): a member their
 * own leads and their administered subteams', a team admin the team's; never another team's.
 */

export interface SubjectAccessInput {
  caller: Caller;
  /** As the request gave it; normalised and checked here (person-email.ts). */
  email: string;
  now: number;
}

/** A delivery as the answer shows it: the endpoint's host, never its URL (a path may hold a token). */
export interface DeliveryShown {
  eventId: string;
  type: string;
  endpointId: string;
  endpointHost: string;
  createdAt: number;
  state: CarriedDelivery['state'];
  attempts: number;
  lastAttemptAt: number | null;
}

export interface PersonLead {
  lead: StoredLead;
  deliveries: DeliveryShown[];
}

export interface SubjectAccessAnswer {
  /** The e-mail as compared: trimmed, lower case. */
  email: string;
  answeredAt: number;
  /** In the order they were stored. */
  leads: PersonLead[];
}

export async function subjectAccess(
  ports: { privacy: PrivacyStore; directory: ScopeDirectory; audit: AuditStore },
  input: SubjectAccessInput,
): Promise<SubjectAccessAnswer> {
  const email = personEmail(input.email);
  const scope = await visibleScope(input.caller, ports.directory);
  // The index gives candidates (every word of the address in the e-mail field); the address
  // itself decides.
  const candidates = await ports.privacy.leadsByEmail(scope, fold(email));
  const leads = candidates.filter((l) => emailOf(l) === email).sort((a, b) => a.seq - b.seq);
  const deliveries =
    leads.length === 0
      ? []
      : await ports.privacy.deliveriesOfLeads(
          input.caller.teamId,
          leads.map((l) => l.seq),
        );
  const byLead = new Map<number, DeliveryShown[]>();
  for (const d of deliveries) {
    const shown = byLead.get(d.leadSeq) ?? [];
    shown.push({
      eventId: d.eventId,
      type: d.type,
      endpointId: d.endpointId,
      endpointHost: endpointHost(d.endpointUrl),
      createdAt: d.createdAt,
      state: d.state,
      attempts: d.attempts,
      lastAttemptAt: d.lastAttemptAt,
    });
    byLead.set(d.leadSeq, shown);
  }
  // The record says that a request was answered and how much it held: never the e-mail asked for.
  await recordAudit(ports, {
    at: input.now,
    teamId: input.caller.teamId,
    actor: keyActor(input.caller),
    action: 'subject_access.answered',
    details: { leads: leads.length, deliveries: deliveries.length },
  });
  return {
    email,
    answeredAt: input.now,
    leads: leads.map((lead) => ({ lead, deliveries: byLead.get(lead.seq) ?? [] })),
  };
}

/** The lead's e-mail, normalised; null when it has none. */
function emailOf(lead: StoredLead): string | null {
  const fields = JSON.parse(lead.fields) as Record<string, unknown>;
  return typeof fields.email === 'string' ? normaliseEmail(fields.email) : null;
}

/** `hooks.example.com` (with its port when not the scheme's default) of an endpoint's URL. */
export function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
