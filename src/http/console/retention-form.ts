import {
  clearRetention,
  MAX_RETENTION_DAYS,
  retentionPolicies,
  setRetention,
} from '../../retention/policy.js';
import { AppError } from '../../shared/errors.js';
import { type ConsoleDeps, ConsolePageError, type ConsoleSession, consoleActor } from './console-deps.js';
import { type Html, html, when } from './html.js';
import { teamQuery } from './layout.js';

/**
 * The team's retention policy on the Privacy view (docs/console.md, docs/privacy.md "Retention"):
 * shown, set and turned off by the team's admins (their own team only) and the operator, through
 * the same use cases as `leadline retention set|clear`.
 */
export async function retentionSection(
  deps: ConsoleDeps,
  session: ConsoleSession,
  team: number | null,
): Promise<Html> {
  if (team === null) {
    const all = await retentionPolicies(deps.store);
    const rows = all.map(
      (p) =>
        html`<tr><td><a href="/console/privacy?team=${p.teamId}">${p.teamId}</a></td><td class="num">${p.days}</td><td>${when(p.lastRunAt)}</td><td class="num">${p.lastErased ?? ''}</td></tr>`,
    );
    return html`<h2>Retention</h2><p>Choose a team to set its retention policy.</p>
<div class="scroll"><table><caption>Retention policies</caption><thead><tr><th scope="col">Team</th><th scope="col">Days</th>
<th scope="col">Last run</th><th scope="col">Leads erased</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="4">No team has a retention policy.</td></tr>` : rows}</tbody></table></div>`;
  }
  const [policy] = await retentionPolicies(deps.store, team);
  const q = teamQuery(session, team);
  const state =
    policy === undefined
      ? html`<p>No retention policy: leads are kept until they are erased.</p>`
      : html`<p>Leads are erased <strong>${policy.days} days</strong> after their last change (a lead never changed: after it was captured), with a receipt for each erasure.
Last run: ${policy.lastRunAt === null ? 'not yet' : html`${when(policy.lastRunAt)}, ${String(policy.lastErased ?? 0)} leads erased`}.</p>`;
  const off =
    policy === undefined
      ? html``
      : html`<form method="post" action="/console/privacy/retention${q}" class="inline" data-confirm="Turn off the retention policy? Leads will be kept.">
<input type="hidden" name="_csrf" value="${session.csrf}"><input type="hidden" name="clear" value="yes"><button type="submit">Turn off</button></form>`;
  return html`<h2>Retention</h2>${state}
<form method="post" action="/console/privacy/retention${q}" class="stack"><input type="hidden" name="_csrf" value="${session.csrf}">
<label for="days">Erase leads not changed for <span class="hint">(days, 1 to ${MAX_RETENTION_DAYS})</span></label>
<input id="days" name="days" type="number" inputmode="numeric" min="1" max="${MAX_RETENTION_DAYS}" required value="${policy === undefined ? '' : String(policy.days)}">
<button type="submit">${policy === undefined ? 'Set policy' : 'Change policy'}</button></form>${off}`;
}

/**
 * Sets or turns off the policy of the team in view from the form's fields
 * (`POST /console/privacy/retention`); returns the notice the page shows.
 */
export async function saveRetention(
  deps: ConsoleDeps,
  session: ConsoleSession,
  team: number | null,
  form: Record<string, unknown>,
): Promise<Html> {
  if (team === null) throw new ConsolePageError(400, 'Not saved', 'Choose a team first.');
  if (form.clear === 'yes') {
    const cleared = await clearRetention(deps.store, {
      teamId: team,
      now: deps.now(),
      actor: consoleActor(session),
    });
    return html`<p role="status" class="notice">${cleared ? 'Retention policy turned off: leads are kept.' : 'There was no retention policy.'}</p>`;
  }
  const raw = typeof form.days === 'string' ? form.days.trim() : '';
  const days = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  const policy = await setRetention(deps.store, {
    teamId: team,
    days,
    now: deps.now(),
    actor: consoleActor(session),
  }).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'invalid-parameters')
      throw new ConsolePageError(
        400,
        'Not saved',
        `Give the days as a whole number from 1 to ${MAX_RETENTION_DAYS}.`,
      );
    throw err;
  });
  return html`<p role="status" class="notice">Retention policy saved: leads not changed for ${String(policy.days)} days are erased by the next run.</p>`;
}
