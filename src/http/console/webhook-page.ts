import type { FastifyInstance } from 'fastify';
import type { AttemptResult, DeliveryRecord } from '../../webhooks/delivery.js';
import type { Endpoint } from '../../webhooks/webhook.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  ConsolePageError,
  type ConsoleSession,
  noStore,
  requireSession,
  teamInView,
} from './console-deps.js';
import { type Html, html, when, whenExact } from './html.js';
import { page, teamQuery } from './layout.js';
import { DELIVERIES_MAX, DELIVERIES_SHOWN, endpointInScope, recentDeliveries } from './webhook-scope.js';
import { audience, endpointState } from './webhooks-page.js';

/** Deliveries the console replays: finished ones. A pending one is already waiting for its attempt. */
export const REPLAYABLE = new Set(['failed', 'delivered']);

/** `?limit=`: DELIVERIES_SHOWN unless given; 1 to DELIVERIES_MAX. */
function limitParam(value: unknown): number {
  if (value === undefined || value === '') return DELIVERIES_SHOWN;
  const n = typeof value === 'string' && /^[0-9]{1,4}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > DELIVERIES_MAX)
    throw new ConsolePageError(400, 'Not shown', `Limit must be a whole number from 1 to ${DELIVERIES_MAX}.`);
  return n;
}

/**
 * One endpoint (docs/console.md, "Views"): what it receives and its state, then its newest deliveries with
 * their state, every attempt (time, status, latency, the answer's first 1 KB) and, for a
 * finished one, a Replay button — as GitHub's deliveries page, redeliver one click away.
 */
export function webhookPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/webhooks/:id', { schema: routeSchema('consoleWebhook') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const endpoint = await endpointInScope(deps, session, (request.params as { id: string }).id);
    const query = request.query as Record<string, unknown>;
    const team = await teamInView(session, query.team, deps);
    const limit = limitParam(query.limit);
    const list = await recentDeliveries(deps, session, endpoint, limit);
    const emails = new Map((await deps.store.directory.members(endpoint.teamId)).map((m) => [m.id, m.email]));
    const q = teamQuery(session, team);
    const here = `/console/webhooks/${endpoint.id}`;
    const body = html`${replayedNotice(query.replayed, list, endpoint, `${here}${q}`)}
<p><a href="/console/webhooks${q}">All endpoints</a></p>
${details(endpoint, session, emails)}
<h2 id="deliveries">Deliveries</h2>
<form method="get" action="${here}" class="inline">${q === '' ? '' : html`<input type="hidden" name="team" value="${team}">`}
<label for="limit">Newest</label> <input id="limit" name="limit" type="number" min="1" max="${DELIVERIES_MAX}" value="${limit}"> <button type="submit">Show</button></form>
${deliveriesTable(list, endpoint, session, q)}`;
    return noStore(reply).send(page(`Endpoint ${endpoint.url}`, body, { session, view: 'webhooks', team }));
  });
}

function replayedNotice(value: unknown, list: DeliveryRecord[], e: Endpoint, reload: string): Html {
  const d = typeof value === 'string' ? list.find((x) => String(x.id) === value) : undefined;
  if (d === undefined) return html``;
  const waits = e.enabled
    ? 'It is attempted within seconds'
    : 'It waits until the endpoint is enabled again (PATCH with enabled: true)';
  return html`<p role="status" class="notice">Delivery ${d.id} is queued again, with the same webhook-id. ${waits}: <a href="${reload}#delivery-${d.id}">reload</a> to see its attempt.</p>`;
}

function details(e: Endpoint, session: ConsoleSession, emails: Map<number, string>): Html {
  return html`<dl class="facts"><dt>URL</dt><dd><code>${e.url}</code></dd>
<dt>Description</dt><dd>${e.description ?? '—'}</dd>
${session.subject.kind === 'operator' ? html`<dt>Team</dt><dd>${e.teamId}</dd>` : ''}
<dt>Events</dt><dd>${e.eventTypes.join(', ')}</dd>
<dt>Previous values</dt><dd>${e.includePrevious ? 'sent in lead.updated (includePrevious)' : 'not sent'}</dd>
<dt>Bodies</dt><dd>${e.payload === 'thin' ? 'thin: type, time and ids only' : 'full: the lead'}</dd>
<dt>Leads of</dt><dd>${audience(e, emails)}</dd>
<dt>Status</dt><dd>${endpointState(e)}</dd><dt>Created</dt><dd>${when(e.createdAt)}</dd>
<dt>Changed</dt><dd>${when(e.updatedAt)}</dd><dt>Id</dt><dd><code>${e.id}</code></dd></dl>`;
}

function deliveriesTable(list: DeliveryRecord[], e: Endpoint, session: ConsoleSession, q: string): Html {
  if (list.length === 0) return html`<p>No deliveries yet: leads stored from now on are delivered here.</p>`;
  const rows = list.map((d) => {
    const last = d.attempts.at(-1);
    // Replay sits beside the state, so a phone shows it without scrolling the table.
    const replay = REPLAYABLE.has(d.state)
      ? html` <form method="post" action="/console/webhooks/${e.id}/deliveries/${d.id}/replay${q}" class="inline">
<input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit">Replay<span class="visually-hidden"> delivery ${d.id}</span></button></form>`
      : '';
    return html`<tr id="delivery-${d.id}"><td>${d.id}</td><td><span class="state-${d.state}">${d.state}</span>${replay}</td>
<td>${last === undefined ? '—' : status(last)}</td><td>${whenExact(d.createdAt)}</td>
<td>${d.state === 'pending' ? whenExact(d.nextAttemptAt) : whenExact(d.finishedAt)}</td><td>${attempts(d)}</td>
<td>${d.type}</td><td><code>${d.eventId}</code></td></tr>`;
  });
  return html`<div class="scroll"><table><caption>Deliveries, newest first (${list.length} shown)</caption><thead><tr>
<th scope="col">Delivery</th><th scope="col">State</th><th scope="col">Last status</th><th scope="col">Created</th>
<th scope="col">Next attempt or finished</th><th scope="col">Attempts</th><th scope="col">Type</th><th scope="col">webhook-id</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

function status(a: AttemptResult): string {
  return a.status === null ? 'no answer' : String(a.status);
}

function attempts(d: DeliveryRecord): Html {
  if (d.attempts.length === 0) return html`none yet`;
  const items = d.attempts.map(
    (a) =>
      html`<li>${whenExact(a.at)}: ${status(a)}, ${a.latencyMs} ms<pre class="answer">${a.answer}</pre></li>`,
  );
  return html`<details><summary>${d.attempts.length} ${d.attempts.length === 1 ? 'attempt' : 'attempts'}<span class="visually-hidden"> of delivery ${d.id}</span></summary><ol class="attempts">${items}</ol></details>`;
}
