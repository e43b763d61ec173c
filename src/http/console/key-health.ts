import type { FastifyInstance } from 'fastify';
import {
  DEPRECATIONS_DEFAULT_DAYS,
  type KeyDeprecations,
  keysDeprecations,
} from '../../retirement/deprecations.js';
import { v1CallsByOperation } from '../../retirement/drain.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, noStore, requireSession, teamInView } from './console-deps.js';
import { type Html, html, when } from './html.js';
import { keyInScope } from './key-revoke.js';
import { page, teamQuery } from './layout.js';
import { callsChart } from './v1-page.js';

/**
 * A key's API health (docs/console.md "API health"; issue 42 §4): what the integration that owns
 * the key sees at `GET /api/pub/v2/me/deprecations` — its v1 calls per day by operation (the v1
 * page's chart), the brownout that will hit it next, the v2 request to paste in place of each
 * operation it called — and one button that makes a key for the same member to move with.
 */
export function keyHealth(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/keys/:id/health', { schema: routeSchema('consoleKeyHealth') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const key = await keyInScope(deps, session, (request.params as { id: string }).id);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const now = deps.now();
    const days = DEPRECATIONS_DEFAULT_DAYS;
    const found = await keysDeprecations(deps.store, [key], {
      days,
      now,
      times: deps.config.v1,
      brownouts: await deps.store.retirement.brownouts(),
    });
    const health = found.keys[0] as KeyDeprecations;
    const member = await deps.store.directory.findMember(key.memberId);
    const q = teamQuery(session, team);
    const body = html`<p>Key <code>${key.display}…</code>${key.label === null ? '' : html` (${key.label})`} of ${member?.email ?? key.memberId}:
${standing(health)}</p>
<h2 id="chart-title">v1 calls per day, by operation (last ${days} days)</h2>
${chart(health, days, now)}
<h2>What to call instead</h2>
${successors(health, deps)}
<h2>Move to a new key</h2>
<p>A new key for the same member calls v2 from its first request; revoke this one once nothing uses it.</p>
<form method="post" action="/console/keys${q === '' ? `?team=${key.teamId}` : q}" class="inline"><input type="hidden" name="_csrf" value="${session.csrf}">
<input type="hidden" name="member" value="${key.memberId}"><input type="hidden" name="label" value="${`v2 for ${key.label ?? key.display}`.slice(0, 200)}">
<button type="submit">Make a v2 key for ${member?.email ?? `member ${key.memberId}`}</button></form>
<p><a href="/console/keys${q}">Back to the keys</a></p>`;
    return noStore(reply).send(page('API health', body, { session, view: 'keys', team, chart: true }));
  });
}

function standing(h: KeyDeprecations): Html {
  const s = h.standing;
  const state =
    s.v1 === 'sunset'
      ? html`v1 is retired: every v1 call of this key is refused.`
      : s.v1 === 'frozen-out'
        ? html`made after v1 closed to new integrations: v1 refuses it.`
        : html`v1 still answers it.`;
  const next = s.brownouts[0];
  const brownout =
    next === undefined
      ? html` No brownout is scheduled for it.`
      : html` <strong>Next brownout for this key: ${when(next.startsAt)} to ${when(next.endsAt)}</strong> — v1 answers it 410 then.`;
  const sunset = s.sunsetAt === null ? html`` : html` Sunset: ${when(s.sunsetAt)}.`;
  return html`${state}${s.v1 === 'sunset' ? html`` : brownout}${sunset}`;
}

function chart(h: KeyDeprecations, days: number, now: number): Html {
  if (h.calls.length === 0) return html`<p>This key made no v1 call in the last ${days} days.</p>`;
  return callsChart(v1CallsByOperation(h.rows, new Set([h.key.id]), days, now));
}

function successors(h: KeyDeprecations, deps: ConsoleDeps): Html {
  if (h.calls.length === 0) return html`<p>Nothing to replace.</p>`;
  const items = h.calls.map((c, i) => {
    const command = `curl -X ${c.successor.method} ${deps.config.publicUrl}${c.successor.path} \\
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '${JSON.stringify(c.successor.body ?? {})}'`;
    return html`<li><p><code>${c.operation}</code>: ${c.count} calls, the last ${when(c.lastCall)}${c.userAgent === null ? '' : html` (${c.userAgent})`}.</p>
<textarea id="successor-${i}" class="successor" rows="3" cols="80" readonly aria-label="The v2 request for ${c.operation}">${command}</textarea>
<button type="button" data-copy="successor-${i}">Copy</button> <span data-copied-for="successor-${i}" aria-live="polite"></span></li>`;
  });
  return html`<ol class="successors">${items}</ol><p>The <a href="/docs/v1-migration">migration guide</a> explains each request.</p>`;
}
