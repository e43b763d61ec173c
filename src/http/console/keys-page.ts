import type { FastifyInstance } from 'fastify';
import { keyState, lastUsedByKey } from '../../keys/key-state.js';
import type { ApiKey } from '../../keys/keys.port.js';
import { listKeys } from '../../keys/list-keys.js';
import { v1Report, windowStart } from '../../retirement/report.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  type ConsoleSession,
  noStore,
  requireSession,
  teamInView,
} from './console-deps.js';
import { type Html, html, when } from './html.js';
import { page, teamPicker, teamQuery } from './layout.js';

/** The report window of the keys list's call counts. */
export const KEYS_WINDOW_DAYS = 30;

/** The keys of the team in view (every team's for the operator without one). */
export async function keysInView(deps: ConsoleDeps, team: number | null): Promise<ApiKey[]> {
  return listKeys(deps.store, { teamId: team });
}

/**
 * Keys (docs/console.md, "Views"): every key of the team with its member, dates, last use, v1 and v2 calls
 * in the last 30 days, legacy v1 grant and state; a form to create one; revoke and the legacy
 * grant one step away. Never a secret: only the display prefix.
 */
export function keysPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/keys', { schema: routeSchema('consoleKeys') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    return noStore(reply).send(await renderKeys(deps, session, team));
  });
}

export async function renderKeys(
  deps: ConsoleDeps,
  session: ConsoleSession,
  team: number | null,
  notice: Html = html``,
): Promise<string> {
  const now = deps.now();
  const keys = await keysInView(deps, team);
  const members = await deps.store.directory.members(team);
  // The members of the team in view (every member for the operator's all-teams view).
  const emails = new Map(members.map((m) => [m.id, m.email]));
  const usage = await deps.store.retirement.usage(null);
  const lastUsed = lastUsedByKey(usage);
  const counts = new Map(v1Report(keys, usage, KEYS_WINDOW_DAYS, now).keys.map((k) => [k.keyId, k]));
  const operator = session.subject.kind === 'operator';
  const q = teamQuery(session, team);
  const rows = keys.map((k) => {
    const c = counts.get(k.id);
    const state = keyState(k, now);
    return html`<tr><td><code>${k.display}…</code></td><td>${k.label ?? ''}</td><td>${emails.get(k.memberId) ?? k.memberId}</td>
${operator ? html`<td>${k.teamId}</td>` : ''}<td>${when(k.createdAt)}</td><td>${when(k.expiresAt)}</td><td>${when(lastUsed.get(k.id) ?? null)}</td>
<td class="num">${c?.v1Calls ?? 0}</td><td class="num">${c?.v2Calls ?? 0}</td><td>${legacyCell(session, k, q)}</td>
<td class="state-${state}">${state}</td><td><a href="/console/keys/${k.id}/health${q}">API health<span class="visually-hidden"> of key ${k.display}</span></a>${state === 'active' ? html` <a href="/console/keys/${k.id}/revoke${q}">Revoke…</a>` : ''}</td></tr>`;
  });
  const create =
    team === null
      ? html`<p>Choose a team to create a key for one of its members.</p>`
      : html`<h2>Create a key</h2>
<form method="post" action="/console/keys${q}" class="stack"><input type="hidden" name="_csrf" value="${session.csrf}">
<label for="member">Member</label><select id="member" name="member" required>${members.map(
          (m) => html`<option value="${m.id}">${m.email}${m.name === null ? '' : ` (${m.name})`}</option>`,
        )}</select>
<label for="label">Label <span class="hint">(what the key is for)</span></label><input id="label" name="label" maxlength="200">
<label for="expires">Expires <span class="hint">(optional, UTC)</span></label><input id="expires" name="expires" type="date">
<button type="submit">Create key</button></form>`;
  const body = html`${notice}${teamPicker(session, await deps.store.directory.teams(), team, '/console/keys')}
<p>Calls are counted over the last ${KEYS_WINDOW_DAYS} days (since ${windowStart(KEYS_WINDOW_DAYS, now)}), as the usage ledger has them.</p>
<div class="scroll"><table><caption>API keys</caption><thead><tr><th scope="col">Prefix</th><th scope="col">Label</th><th scope="col">Member</th>
${operator ? html`<th scope="col">Team</th>` : ''}<th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th>
<th scope="col">v1 calls</th><th scope="col">v2 calls</th><th scope="col">Legacy v1</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="12">No keys yet.</td></tr>` : rows}</tbody></table></div>
${create}`;
  return page('Keys', body, { session, view: 'keys', team });
}

/**
 * The legacy v1 grant lets a key made after the freeze call v1: the operator's decision (as
 * `leadline keys grant-legacy-v1`), so team admins see it and the operator changes it.
 */
function legacyCell(session: ConsoleSession, k: ApiKey, q: string): Html {
  const label = k.legacyV1 ? 'granted' : 'no';
  if (session.subject.kind !== 'operator' || k.revokedAt !== null) return html`${label}`;
  return html`<form method="post" action="/console/keys/${k.id}/legacy-v1${q}" class="inline">
<input type="hidden" name="_csrf" value="${session.csrf}"><input type="hidden" name="grant" value="${k.legacyV1 ? 'no' : 'yes'}">
${label} <button type="submit">${k.legacyV1 ? 'Take back' : 'Grant'}<span class="visually-hidden"> legacy v1 for key ${k.display}</span></button></form>`;
}
