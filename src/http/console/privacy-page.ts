import type { FastifyInstance } from 'fastify';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  type ConsoleSession,
  checkCsrf,
  noStore,
  requireSession,
  teamInView,
} from './console-deps.js';
import { erasePerson, eraseSection } from './erase-form.js';
import { type Html, html } from './html.js';
import { page, teamPicker } from './layout.js';
import { retentionSection, saveRetention } from './retention-form.js';

/**
 * Privacy (docs/console.md, "Views"): the team's personal data — its retention policy
 * (retention-form.ts) and "Erase a person" (erase-form.ts). Each form lives in a file of its own: its section is shown here, its
 * POST answers with this page and a notice.
 */
export function privacyPage(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/privacy', { schema: routeSchema('consolePrivacy') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    return noStore(reply).send(await renderPrivacy(deps, session, team));
  });
  app.post('/privacy/retention', { schema: routeSchema('consoleSetRetention') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const notice = await saveRetention(deps, session, team, request.body as Record<string, unknown>);
    return noStore(reply).send(await renderPrivacy(deps, session, team, notice));
  });
  app.post('/privacy/erase', { schema: routeSchema('consoleErasePerson') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const notice = await erasePerson(deps, session, team, request.body as Record<string, unknown>);
    return noStore(reply).send(await renderPrivacy(deps, session, team, notice));
  });
}

export async function renderPrivacy(
  deps: ConsoleDeps,
  session: ConsoleSession,
  team: number | null,
  notice: Html = html``,
): Promise<string> {
  const body = html`${notice}${teamPicker(session, await deps.store.directory.teams(), team, '/console/privacy')}
${eraseSection(session, team)}
${await retentionSection(deps, session, team)}`;
  return page('Privacy', body, { session, view: 'privacy', team });
}
