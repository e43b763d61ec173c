import type { FastifyInstance } from 'fastify';
import type { AuditActor } from '../../audit/audit.port.js';
import { listAudit } from '../../audit/list-audit.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, noStore, notFound, requireSession, teamInView } from './console-deps.js';
import { html, whenExact } from './html.js';
import { page, teamPicker, teamQuery } from './layout.js';

/** Records on one console page. */
export const AUDIT_PAGE_SIZE = 50;

function actorText(a: AuditActor): string {
  if (a.via === 'key') return `key ${a.keyId} (member ${a.memberId})`;
  if (a.via === 'console') return `console (member ${a.memberId})`;
  return a.via === 'operator' ? 'operator' : 'server';
}

/**
 * The audit log (docs/console.md, "Views"; docs/privacy.md "Audit log"): the team's records,
 * newest first, a page at a time (`before`: the id the previous page ended at). A team admin
 * sees their team's; the operator a team's, or every record without one.
 */
export function auditPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/audit', { schema: routeSchema('consoleAudit') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const query = request.query as Record<string, unknown>;
    const team = await teamInView(session, query.team, deps);
    const beforeText = typeof query.before === 'string' && query.before !== '' ? query.before : null;
    if (beforeText !== null && !/^[0-9]{1,15}$/.test(beforeText)) throw notFound();
    const by =
      session.subject.kind === 'team-admin'
        ? { member: { teamId: session.subject.member.teamId } }
        : { operator: { teamId: team } };
    const { records, more } = await listAudit(deps.store, by, {
      before: beforeText === null ? null : Number(beforeText),
      limit: AUDIT_PAGE_SIZE,
    });
    const operator = session.subject.kind === 'operator';
    const rows = records.map(
      (
        r,
      ) => html`<tr><td>${whenExact(r.at)}</td>${operator ? html`<td>${r.teamId ?? '–'}</td>` : ''}<td><code>${r.action}</code></td>
<td>${actorText(r.actor)}</td><td><code class="details">${JSON.stringify(r.details)}</code></td></tr>`,
    );
    const last = records.at(-1);
    const q = teamQuery(session, team);
    const older =
      more && last !== undefined
        ? html`<p><a href="/console/audit${q === '' ? '?' : `${q}&`}before=${String(last.id)}">Older records</a></p>`
        : '';
    const body = html`${teamPicker(session, await deps.store.directory.teams(), team, '/console/audit')}
<p>Who changed keys, webhook endpoints and leads, who erased, who asked for a person’s data, and bulk reads: ids and counts, never a personal value.</p>
<div class="scroll"><table><caption>Audit log, newest first</caption><thead><tr><th scope="col">When</th>${operator ? html`<th scope="col">Team</th>` : ''}
<th scope="col">Action</th><th scope="col">By</th><th scope="col">Details</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="5">No records${beforeText === null ? ' yet' : ' before these'}.</td></tr>` : rows}</tbody></table></div>
${older}`;
    return noStore(reply).send(page('Audit log', body, { session, view: 'audit', team }));
  });
}
