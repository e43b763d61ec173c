import type { FastifyInstance } from 'fastify';
import { type CallsByOperation, drainShare, retirementTimeline, stillOnV1 } from '../../retirement/drain.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, noStore, requireSession, teamInView } from './console-deps.js';
import { Html, html, when } from './html.js';
import { page, teamPicker, teamQuery } from './layout.js';
import { daysParam, type V1View, v1View } from './v1-data.js';

/**
 * v1 migration (docs/console.md, "Views"): calls per day by operation (uPlot draws them from the JSON block;
 * the same numbers are a table for readers without the chart), the keys still calling v1 with
 * their last call and user agent, the share of keys that moved, the retirement's dates and the
 * brownouts on a timeline, and the report as CSV.
 */
export function v1Page(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/v1', { schema: routeSchema('consoleV1') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const query = request.query as Record<string, unknown>;
    const team = await teamInView(session, query.team, deps);
    const view = await v1View(deps, team, daysParam(query.days));
    const q = teamQuery(session, team);
    const csv = `/console/v1.csv${q === '' ? '?' : `${q}&`}days=${view.days}`;
    const share = drainShare(view.report);
    const pct = share.calledV1 === 0 ? 100 : Math.round((share.migrated / share.calledV1) * 100);
    const body = html`${teamPicker(session, await deps.store.directory.teams(), team, '/console/v1')}
<form method="get" action="/console/v1" class="inline">${team !== null && session.subject.kind === 'operator' ? html`<input type="hidden" name="team" value="${team}">` : ''}
<label for="days">Days</label> <input id="days" name="days" type="number" min="1" max="3660" value="${view.days}"> <button type="submit">Show</button></form>
<p><a href="${csv}" download>Export the report as CSV</a></p>
<h2>Keys moved off v1</h2>
<p class="share"><meter id="share" min="0" max="100" value="${pct}" aria-describedby="share-text"></meter>
<span id="share-text">${share.migrated} of ${share.calledV1} keys that called v1 have moved (${pct}%).</span></p>
<h2 id="chart-title">v1 calls per day, by operation</h2>
${callsChart(view.calls)}
<h2>Keys still on v1 (last ${view.days} days)</h2>
${stillTable(view)}
<h2>Timeline</h2>
${timeline(view, deps)}`;
    return noStore(reply).send(page('v1 migration', body, { session, view: 'v1', team, chart: true }));
  });
}

/** The v1 calls per day by operation: uPlot's element and data, and the same numbers as a table (the key health page too). */
export function callsChart(calls: CallsByOperation): Html {
  const data = JSON.stringify(calls).replaceAll('<', '\\u003c');
  const head = calls.series.map((s) => html`<th scope="col">${s.operation}</th>`);
  const rows = calls.days.map(
    (day, i) =>
      html`<tr><th scope="row">${day}</th>${calls.series.map((s) => html`<td class="num">${s.calls[i] ?? 0}</td>`)}</tr>`,
  );
  // Not script: JSON the external console.js reads (a data block is not run, so the CSP holds).
  return html`<div id="chart" class="chart" role="img" aria-labelledby="chart-title"></div>
<script type="application/json" id="chart-data">${new Html(data)}</script>
<details><summary>The numbers behind the chart</summary><div class="scroll"><table><caption>v1 calls per day</caption>
<thead><tr><th scope="col">Day</th>${head}</tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

function stillTable(view: V1View): Html {
  const still = stillOnV1(view.report);
  if (still.length === 0) return html`<p>No key called v1 in this window.</p>`;
  return html`<div class="scroll"><table><caption>Keys that called v1</caption><thead><tr><th scope="col">Key</th><th scope="col">Member</th>
<th scope="col">v1 calls</th><th scope="col">Last v1 call</th><th scope="col">User agent</th><th scope="col">Status</th></tr></thead><tbody>${still.map(
    (k) => {
      const key = view.keys.get(k.keyId);
      return html`<tr><td><code>${key?.display ?? k.keyId}…</code></td><td>${key?.email ?? k.memberId}</td><td class="num">${k.v1Calls}</td>
<td>${k.v1LastSeen === null ? '—' : when(Date.parse(k.v1LastSeen))}</td><td>${k.userAgent ?? '—'}</td><td>${k.status}</td></tr>`;
    },
  )}</tbody></table></div>`;
}

function timeline(view: V1View, deps: ConsoleDeps): Html {
  const now = deps.now();
  const entries = retirementTimeline(deps.config.v1, view.brownouts);
  const items = entries.map(
    (e) =>
      html`<li class="${e.at <= now ? 'past' : 'future'} ${e.kind}"><time datetime="${new Date(e.at).toISOString()}">${when(e.at)}</time> ${e.label}</li>`,
  );
  const nowAt = entries.findIndex((e) => e.at > now);
  const nowItem = html`<li class="now"><time datetime="${new Date(now).toISOString()}">${when(now)}</time> now</li>`;
  if (nowAt === -1) items.push(nowItem);
  else items.splice(nowAt, 0, nowItem);
  return html`<ol class="timeline">${items}</ol>${deps.config.v1.sunsetAt === null ? html`<p>No sunset is configured yet.</p>` : ''}`;
}
