import type { FastifyInstance } from 'fastify';
import type { DeliveryRecord, DeliveryState } from '../../webhooks/delivery.js';
import type { Endpoint } from '../../webhooks/webhook.js';
import { creatorText } from '../../webhooks/wire.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, noStore, requireSession, teamInView } from './console-deps.js';
import { type Html, html, when } from './html.js';
import { page, teamPicker, teamQuery } from './layout.js';
import { recentDeliveries } from './webhook-scope.js';

/** How many of each endpoint's newest deliveries the list sums up. */
const SUMMED = 20;

/**
 * Webhooks (docs/console.md, "Views"): the team's endpoints with what they receive, whether they are enabled
 * (and why leadline disabled one), and how their newest deliveries went; each leads to its page
 * of deliveries. Endpoints are registered through the API or `leadline webhooks add`.
 */
export function webhooksPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/webhooks', { schema: routeSchema('consoleWebhooks') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const endpoints = await deps.store.webhooks.endpoints(team);
    const emails = new Map((await deps.store.directory.members(team)).map((m) => [m.id, m.email]));
    const q = teamQuery(session, team);
    const operator = session.subject.kind === 'operator';
    const rows: Html[] = [];
    for (const e of endpoints) {
      const recent = await recentDeliveries(deps, session, e, SUMMED);
      rows.push(html`<tr><td><a href="/console/webhooks/${e.id}${q}">${e.url}</a></td><td>${e.description ?? ''}</td>
${operator ? html`<td>${e.teamId}</td>` : ''}<td>${e.eventTypes.join(', ')}</td><td>${audience(e, emails)}</td>
<td>${endpointState(e)}</td><td>${when(e.createdAt)}</td><td>${creatorText(e.createdBy, emails)}</td><td>${summary(recent)}</td><td>${lastDelivery(recent)}</td></tr>`);
    }
    const body = html`${teamPicker(session, await deps.store.directory.teams(), team, '/console/webhooks')}
<p>Endpoints are registered with the API (<code>POST /api/pub/v2/webhooks</code>, a team admin’s key) or
<code>leadline webhooks add</code>: <a href="/docs/webhooks">the webhooks reference</a>. Open an endpoint for its deliveries.</p>
<div class="scroll"><table><caption>Webhook endpoints</caption><thead><tr><th scope="col">URL</th><th scope="col">Description</th>
${operator ? html`<th scope="col">Team</th>` : ''}<th scope="col">Events</th><th scope="col">Leads of</th><th scope="col">Status</th>
<th scope="col">Created</th><th scope="col">Created by</th><th scope="col">Last ${SUMMED} deliveries</th><th scope="col">Last delivery</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="10">No endpoints yet.</td></tr>` : rows}</tbody></table></div>`;
    return noStore(reply).send(page('Webhooks', body, { session, view: 'webhooks', team }));
  });
}

/** Whose leads an endpoint receives: the whole team, or its member and subteam filters. */
export function audience(e: Endpoint, emails: Map<number, string>): string {
  if (e.members === null && e.subteams === null) return 'the whole team';
  const parts: string[] = [];
  if (e.members !== null) parts.push(`members ${e.members.map((m) => emails.get(m) ?? m).join(', ')}`);
  if (e.subteams !== null) parts.push(`subteams ${e.subteams.join(', ')}`);
  return parts.join('; or ');
}

/**
 * Enabled, or disabled — when leadline disabled it, why and when. The time is the endpoint's
 * last change: the disabling, unless a team admin edited the endpoint (without enabling it) since.
 */
export function endpointState(e: Endpoint): Html {
  if (e.enabled) return html`<span class="state-enabled">enabled</span>`;
  return html`<span class="state-disabled">disabled</span>${e.disabledReason === null ? '' : html` by leadline on ${when(e.updatedAt)}: ${e.disabledReason}`}`;
}

const STATES: DeliveryState[] = ['delivered', 'pending', 'failed', 'dropped'];

function summary(list: DeliveryRecord[]): string {
  if (list.length === 0) return 'none yet';
  const counts = STATES.map((s) => [s, list.filter((d) => d.state === s).length] as const);
  return counts
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
}

function lastDelivery(list: DeliveryRecord[]): Html {
  const d = list[0];
  if (d === undefined) return html`—`;
  return html`<span class="state-${d.state}">${d.state}</span>, ${when(d.createdAt)}`;
}
