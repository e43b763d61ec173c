import type { FastifyInstance } from 'fastify';
import { closeSession, openSession } from '../../console/sign-in.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  ConsolePageError,
  checkCsrf,
  noStore,
  requireSession,
  sessionCookie,
} from './console-deps.js';
import { html } from './html.js';
import { page } from './layout.js';

/**
 * Sign-in and sign-out. Opening the link (GET) only shows a button: the link is used by the POST
 * it sends, so a mail scanner or link preview that fetches the link does not spend it. The POST
 * starts the session and sets its cookie; a used, expired or unknown link is refused.
 */
export function signInRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/sign-in/:token', { schema: routeSchema('consoleSignInPage') }, async (request, reply) => {
    const { token } = request.params as { token: string };
    // The token reaches no other site in a Referer (the console's `same-origin` policy): the
    // page loads only the service's own files, and the link is spent by this form's POST.
    return noStore(reply).send(
      page(
        'Sign in to the leadline console',
        html`<p>This link signs you in once. It expires 15 minutes after it was made.</p>
<form method="post" action="/console/sign-in"><input type="hidden" name="link" value="${token}">
<button type="submit">Sign in</button></form>`,
      ),
    );
  });

  app.post('/sign-in', { schema: routeSchema('consoleSignIn') }, async (request, reply) => {
    const link = (request.body as Record<string, unknown> | undefined)?.link;
    const session = typeof link === 'string' ? await openSession(deps.store, link, deps.now()) : null;
    if (session === null) {
      throw new ConsolePageError(
        400,
        'Sign-in link not valid',
        html`This sign-in link has expired or has already been used. Ask the operator for a new one: they make it with <code>leadline console link</code>.`,
        false,
      );
    }
    return reply.header('set-cookie', sessionCookie(deps.config, session)).redirect('/console/keys', 303);
  });

  app.post('/sign-out', { schema: routeSchema('consoleSignOut') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    await closeSession(deps.store, session.id);
    return noStore(reply)
      .header('set-cookie', sessionCookie(deps.config, null))
      .send(page('Signed out', html`<p>You are signed out. A new sign-in link signs you in again.</p>`));
  });

  app.get('/', { schema: routeSchema('consoleHome') }, async (_request, reply) =>
    reply.redirect('/console/keys', 303),
  );
}
