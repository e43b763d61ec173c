import type { FastifyError, FastifyInstance } from 'fastify';
import { unstorableReason } from '../../shared/storable-text.js';
import { pageHeaders } from '../page-headers.js';
import { consoleAssets } from './assets.js';
import { auditPage } from './audit-page.js';
import { brownoutsPage } from './brownouts-page.js';
import { type ConsoleDeps, ConsolePageError, noStore } from './console-deps.js';
import { deliveryReplay } from './delivery-replay.js';
import { html } from './html.js';
import { keyCreate } from './key-create.js';
import { keyHealth } from './key-health.js';
import { keyLegacy } from './key-legacy.js';
import { keyRevoke } from './key-revoke.js';
import { keysPage } from './keys-page.js';
import { page } from './layout.js';
import { leadPage } from './lead-page.js';
import { leadSearch } from './lead-search.js';
import { privacyPage } from './privacy-page.js';
import { brownoutSchedule } from './schedule-brownout.js';
import { signInRoutes } from './sign-in.js';
import { v1Csv } from './v1-csv.js';
import { v1Page } from './v1-page.js';
import { webhookPage } from './webhook-page.js';
import { webhooksPage } from './webhooks-page.js';

/** Form posts are small: a label, a few ids. */
const FORM_LIMIT = 16 * 1024;

/**
 * The admin console (docs/console.md), under /console: server-rendered pages, forms that POST
 * with a CSRF token, the pages' CSP and headers (page-headers.ts). Registered as a plugin of its
 * own so its form parser, error pages and 404 reach no API route.
 */
export async function consoleRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  // Referer to the console's own origin only, so its forms' POSTs carry a real Origin (below).
  await pageHeaders(app, 'same-origin');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_request, body, done) => {
      const fields = Object.fromEntries(new URLSearchParams(body as string));
      // The same storable-text rule as the API and the import (domain/storable-text.ts): a NUL
      // (`%00`) cannot be stored by PostgreSQL. (URLSearchParams already turns a lone surrogate's
      // bytes into U+FFFD.)
      for (const [name, value] of Object.entries(fields)) {
        const why = unstorableReason(value);
        if (why !== null)
          return done(new ConsolePageError(400, 'Not saved', `The field "${name}" ${why}.`), undefined);
      }
      done(null, fields);
    },
  );
  // Defence in depth beside SameSite=Strict and the CSRF token, and the one guard of the sign-in
  // form (no session yet, so no token): the browser says where a form was posted from, in
  // Sec-Fetch-Site and in Origin. The console's pages are `same-origin` (pageHeaders above), so
  // its own forms carry its origin; `Origin: null` — a no-referrer or sandboxed page, a
  // cross-origin redirect — is refused (docs/console.md, "Security model"), as a browser without Sec-Fetch-Site gives
  // nothing else to tell it from another site's. No Origin at all (a client that is not a
  // browser, an old browser) passes: it holds no victim's cookie, and the token still guards.
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST') return;
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    const own = [
      new URL(deps.config.publicUrl).origin,
      `${request.protocol}://${request.headers.host ?? ''}`,
    ];
    const foreign =
      (site !== undefined && site !== 'same-origin' && site !== 'none') ||
      (origin !== undefined && !own.includes(origin));
    if (foreign) throw new ConsolePageError(403, 'Refused', 'This form was sent from another site.');
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = err instanceof ConsolePageError;
    if (!known) request.log.error({ err }, 'console page failed');
    const status = known ? err.status : (err.statusCode ?? 500) < 500 ? (err.statusCode ?? 500) : 500;
    const title = known ? err.title : status < 500 ? 'Not done' : 'Something went wrong';
    const detail = known
      ? err.detail
      : status < 500
        ? err.message
        : 'The console could not do this now. Try again shortly.';
    // A link back to the console's first view, unless that view is the one that failed or the
    // console would only refuse again (no session): then it would lead back here.
    const back =
      (!known || err.back) && !(request.method === 'GET' && request.url.split('?')[0] === '/console/keys');
    return noStore(reply.status(status)).send(
      page(
        title,
        html`<p>${detail}</p>${back ? html`<p><a href="/console/keys">Back to the console</a></p>` : ''}`,
      ),
    );
  });
  app.setNotFoundHandler((_request, reply) =>
    noStore(reply.status(404)).send(page('Not found', html`<p>There is nothing at this address.</p>`)),
  );
  consoleAssets(app);
  signInRoutes(app, deps);
  keysPage(app, deps);
  keyCreate(app, deps);
  keyRevoke(app, deps);
  keyHealth(app, deps);
  keyLegacy(app, deps);
  leadSearch(app, deps);
  leadPage(app, deps);
  v1Page(app, deps);
  v1Csv(app, deps);
  webhooksPage(app, deps);
  webhookPage(app, deps);
  deliveryReplay(app, deps);
  brownoutsPage(app, deps);
  brownoutSchedule(app, deps);
  privacyPage(app, deps);
  auditPage(app, deps);
}
