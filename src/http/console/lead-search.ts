import type { FastifyInstance } from 'fastify';
import type { StoredLead } from '../../leads/lead.js';
import { leadsByEmail, normalisedEmail, SEARCH_LIMIT } from '../../leads/lead-history.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, ConsolePageError, noStore, requireSession, teamInView } from './console-deps.js';
import { type Html, html } from './html.js';
import { page, teamPicker, teamQuery } from './layout.js';

/** The longest e-mail the search takes (RFC 5321's path limit, with room). */
const EMAIL_MAX = 320;

/**
 * Leads (docs/console.md, "Lead page"): a team admin finds their team's leads by e-mail —
 * trimmed, without case, the whole address — merged ones too, marked; each opens its page.
 */
export function leadSearch(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/leads', { schema: routeSchema('consoleLeads') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const query = request.query as Record<string, unknown>;
    const team = await teamInView(session, query.team, deps);
    const asked = typeof query.email === 'string' ? query.email : '';
    if (asked.length > EMAIL_MAX)
      throw new ConsolePageError(400, 'Not searched', `An e-mail has at most ${EMAIL_MAX} characters.`);
    const searched = normalisedEmail(asked) !== null;
    const found = searched ? await leadsByEmail(deps.store.leads, team, asked) : [];
    const q = teamQuery(session, team);
    const body = html`${teamPicker(session, await deps.store.directory.teams(), team, '/console/leads')}
<form method="get" action="/console/leads" class="inline" role="search">${q === '' ? '' : html`<input type="hidden" name="team" value="${team}">`}
<label for="email">E-mail</label> <input id="email" name="email" type="email" maxlength="${EMAIL_MAX}" value="${asked}" autocomplete="off" required> <button type="submit">Find</button></form>
<p>Finds the leads whose e-mail is this one (spaces around it and case do not count). Open a lead for its values, its merges and its history.</p>
${searched ? results(found, q) : ''}`;
    return noStore(reply).send(page('Leads', body, { session, view: 'leads', team }));
  });
}

function results(found: StoredLead[], q: string): Html {
  if (found.length === 0) return html`<p role="status">No lead has this e-mail.</p>`;
  const more = found.length === SEARCH_LIMIT ? html` (the first ${SEARCH_LIMIT})` : '';
  const rows = found.map((lead) => {
    const v2 = leadToV2(lead);
    return html`<tr><td><a href="/console/leads/${lead.uuid}${q}">${leadName(lead)}</a></td><td>${v2.systemFields.email ?? ''}</td>
<td>${v2.systemFields.companyName ?? ''}</td><td>${lead.userEmail}</td>
<td>${v2.captureDatetime}</td><td>${lead.version}</td><td>${leadState(lead, q)}</td></tr>`;
  });
  return html`<div class="scroll"><table><caption>Leads with this e-mail${more}</caption><thead><tr>
<th scope="col">Lead</th><th scope="col">E-mail</th><th scope="col">Company</th><th scope="col">Collected by</th>
<th scope="col">Captured</th><th scope="col">Version</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** How a lead is named in lists: its name, else its e-mail, else its v2 id. */
export function leadName(lead: StoredLead): string {
  const s = leadToV2(lead).systemFields;
  const name = s.fullName ?? ([s.firstName, s.lastName].filter((x) => x !== null).join(' ') || null);
  return name ?? s.email ?? lead.uuid;
}

/** Current, or merged into another lead (a link to it). */
export function leadState(lead: StoredLead, q: string): Html {
  if (lead.mergedInto === null) return html`current`;
  return html`merged into <a href="/console/leads/${lead.mergedInto}${q}"><code>${lead.mergedInto}</code></a>`;
}
