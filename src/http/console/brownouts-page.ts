import type { FastifyInstance } from 'fastify';
import type { Brownout } from '../../retirement/gates.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  type ConsoleSession,
  noStore,
  requireOperator,
  requireSession,
} from './console-deps.js';
import { type Html, html, when } from './html.js';
import { page } from './layout.js';

const OPERATOR_ONLY = 'Brownouts are scheduled by the operator.';

/**
 * Brownouts (docs/console.md, "Views"; operator only): the windows during which v1 answers 410, active,
 * scheduled and past, with a form to schedule one for every key or chosen keys. The v1
 * migration view shows them on its timeline.
 */
export function brownoutsPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/brownouts', { schema: routeSchema('consoleBrownouts') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    requireOperator(session, OPERATOR_ONLY);
    return noStore(reply).send(await renderBrownouts(deps, session));
  });
}

export { OPERATOR_ONLY };

export async function renderBrownouts(
  deps: ConsoleDeps,
  session: ConsoleSession,
  notice: Html = html``,
): Promise<string> {
  const now = deps.now();
  const all = await deps.store.retirement.brownouts();
  const active = all.filter((b) => b.startsAt <= now && now < b.endsAt);
  const scheduled = all.filter((b) => b.startsAt > now);
  const past = all.filter((b) => b.endsAt <= now);
  const body = html`${notice}
${section('Active', active, session, 'No brownout is on now.')}
${section('Scheduled', scheduled, session, 'No brownout is scheduled.')}
${section('Past', past, session, 'No brownout has ended yet.')}
<h2>Schedule a brownout</h2>
<form method="post" action="/console/brownouts" class="stack"><input type="hidden" name="_csrf" value="${session.csrf}">
<label for="starts">Starts <span class="hint">(UTC)</span></label><input id="starts" name="starts" type="datetime-local" required>
<label for="ends">Ends <span class="hint">(UTC)</span></label><input id="ends" name="ends" type="datetime-local" required>
<label for="keys">Keys <span class="hint">(key ids separated by commas; empty: every key)</span></label>
<input id="keys" name="keys" inputmode="numeric" pattern="[0-9, ]*">
<button type="submit">Schedule</button></form>`;
  return page('Brownouts', body, { session, view: 'brownouts' });
}

function section(title: string, list: Brownout[], session: ConsoleSession, none: string): Html {
  if (list.length === 0) return html`<h2>${title}</h2><p>${none}</p>`;
  return html`<h2>${title}</h2><div class="scroll"><table><caption>${title} brownouts</caption><thead><tr><th scope="col">Id</th><th scope="col">Starts</th>
<th scope="col">Ends</th><th scope="col">Keys</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${list.map(
    (
      b,
    ) => html`<tr><td>${b.id}</td><td>${when(b.startsAt)}</td><td>${when(b.endsAt)}</td><td>${b.keyIds === null ? 'every key' : b.keyIds.join(', ')}</td>
<td><form method="post" action="/console/brownouts/${b.id}/remove" class="inline" data-confirm="Remove brownout ${b.id}?">
<input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit">Remove<span class="visually-hidden"> brownout ${b.id}</span></button></form></td></tr>`,
  )}</tbody></table></div>`;
}
