import type { FastifyInstance } from 'fastify';
import type { StoredLead } from '../../leads/lead.js';
import { HISTORY_LIMIT, type HistoryEntry, historyOf } from '../../leads/lead-history.js';
import type { LeadRecord } from '../../leads/leads.port.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, noStore, notFound, requireSession, teamInView } from './console-deps.js';
import { type Html, html, when, whenExact } from './html.js';
import { page, teamQuery } from './layout.js';
import { leadName, leadState } from './lead-search.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One lead (docs/console.md, "Lead page"): its current values in v2's shape, its version and last
 * change, the leads merged into it (or the lead it was merged into), and its history of changes
 * and merges as far back as the webhook event retention — field names, source and time, never a
 * value. Another team's lead is "Not found", as one that does not exist.
 */
export function leadPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/leads/:id', { schema: routeSchema('consoleLead') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const id = (request.params as { id: string }).id;
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    if (!UUID.test(id)) throw notFound();
    const record = await deps.store.leads.record(team, id.toLowerCase(), HISTORY_LIMIT);
    // An erased lead's tombstone holds nothing to show: not found, as over v2 (docs/privacy.md).
    if (record === null || record.lead.erased) throw notFound();
    const q = teamQuery(session, team);
    const { lead } = record;
    const days = Math.round(deps.config.webhooks.eventRetentionMs / 86_400_000);
    const body = html`<p><a href="/console/leads${q}">Find another lead</a></p>
${lead.mergedInto === null ? '' : html`<p class="notice" role="status">This lead was ${leadState(lead, q)}: that lead holds its values now.</p>`}
${facts(record, q)}
<h2 id="values">Current values</h2>
${values(lead)}
<h2 id="merged">Merged into this lead</h2>
${mergedTable(record.merged, q)}
<h2 id="history">History</h2>
<p>Changes and merges as the event log still holds them: it keeps every event for ${days} days
(<code>LEADLINE_EVENT_RETENTION_DAYS</code>), so the history reaches back no further. It names the
fields that changed, never their values.</p>
${historyTable(historyOf(record), lead, q)}`;
    return noStore(reply).send(page(`Lead ${leadName(lead)}`, body, { session, view: 'leads', team }));
  });
}

function facts(record: LeadRecord, q: string): Html {
  const { lead } = record;
  const v2 = leadToV2(lead);
  const changed =
    lead.changedVia === null
      ? 'none since it was stored'
      : `${when(record.changedAt)}, from ${lead.changedVia}`;
  return html`<dl class="facts"><dt>Lead id</dt><dd><code>${lead.uuid}</code></dd>
<dt>v1 id</dt><dd><code>${lead.id}</code></dd><dt>Status</dt><dd>${leadState(lead, q)}</dd>
<dt>Version</dt><dd>${lead.version}</dd><dt>Last change</dt><dd>${changed}</dd>
<dt>Collected by</dt><dd>${lead.userEmail}</dd><dt>Captured</dt><dd>${v2.captureDatetime}</dd>
<dt>Stored</dt><dd>${when(lead.createdAt)}</dd></dl>`;
}

/** Every value of the v2 lead as a row: `systemFields.email`, `v1Fields.time`, … (escaped). */
function values(lead: StoredLead): Html {
  const rows: Html[] = [];
  const add = (name: string, value: unknown) => {
    if (value === null || value === undefined) return;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    rows.push(html`<tr><th scope="row"><code>${name}</code></th><td class="value">${text}</td></tr>`);
  };
  const v2 = leadToV2(lead) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(v2)) {
    if (key === 'systemFields' || key === 'v1Fields') {
      for (const [name, inner] of Object.entries(value as Record<string, unknown>))
        add(`${key}.${name}`, inner);
    } else add(key, value);
  }
  return html`<div class="scroll"><table><caption>The lead as v2 gives it (members without a value left out)</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function mergedTable(merged: StoredLead[], q: string): Html {
  if (merged.length === 0) return html`<p>No lead has been merged into this one.</p>`;
  const rows = merged.map(
    (
      m,
    ) => html`<tr><td><a href="/console/leads/${m.uuid}${q}">${leadName(m)}</a></td><td><code>${m.uuid}</code></td>
<td>${m.userEmail}</td><td>${leadToV2(m).captureDatetime}</td></tr>`,
  );
  return html`<div class="scroll"><table><caption>Leads merged into this one</caption><thead><tr>
<th scope="col">Lead</th><th scope="col">Lead id</th><th scope="col">Collected by</th><th scope="col">Captured</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

function historyTable(entries: HistoryEntry[], lead: StoredLead, q: string): Html {
  if (entries.length === 0) return html`<p>The store holds no event about this lead.</p>`;
  const link = (uuid: string) => html`<a href="/console/leads/${uuid}${q}"><code>${uuid}</code></a>`;
  const what = (e: HistoryEntry): Html => {
    switch (e.kind) {
      case 'created':
        return html`stored`;
      case 'updated':
        return html`changed`;
      case 'merged-into-this':
        return html`${link(e.leadId)} merged into this lead`;
      case 'merged-away':
        return e.mergedInto === null
          ? html`merged into another lead`
          : html`merged into ${link(e.mergedInto)}`;
    }
  };
  const rows = entries.map(
    (
      e,
    ) => html`<tr><td>${whenExact(e.at)}</td><td>${what(e)}</td><td>${e.version ?? '—'}</td><td>${e.source ?? '—'}</td>
<td>${e.changedFields.length === 0 ? '—' : html`<ul class="fields">${e.changedFields.map((f) => html`<li><code>${f}</code></li>`)}</ul>`}</td></tr>`,
  );
  const shown = entries.length === HISTORY_LIMIT ? html`, the newest ${HISTORY_LIMIT}` : '';
  return html`<div class="scroll"><table><caption>History of ${leadName(lead)}, oldest first${shown}</caption><thead><tr>
<th scope="col">When</th><th scope="col">What</th><th scope="col">Version</th><th scope="col">Source</th><th scope="col">Fields changed</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}
