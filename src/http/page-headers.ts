import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The headers of every page the service serves to browsers (R17): the console (src/http/console/)
 * acts for a signed-in team admin or the operator, so no script may run on these pages but the
 * service's own files, no other site may frame them, and no URL (a sign-in link's included) leaks
 * to another site through a Referer. The pages hold no inline script,
 * style or event handler (their script and styles are files: src/http/page-assets.ts), so the
 * policy needs no `'unsafe-inline'`, hash or nonce.
 */
export const PAGE_CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  // Nothing fetches today; a page's own script may call the service.
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/**
 * `no-referrer` for the docs and problem pages: nothing to tell anyone. `same-origin` for the
 * console (docs/console.md, "Security model"): under `no-referrer` a browser sends `Origin: null` on a page's form POSTs,
 * which the console's guard (src/http/console/routes.ts) refuses as it cannot tell it from a
 * sandboxed or no-referrer page of another site; `same-origin` makes the browser name the
 * console's own origin there, while other sites still get no Referer at all.
 */
export type PageReferrerPolicy = 'no-referrer' | 'same-origin';

/**
 * Registers the page headers through @fastify/helmet on the context it is called in — the pages'
 * own plugin (src/http/pages.ts) or the console's — so API responses keep their headers exactly
 * (v1's are a wire contract; JSON is never rendered, and `nosniff` is already on every response).
 */
export async function pageHeaders(
  app: FastifyInstance,
  referrerPolicy: PageReferrerPolicy = 'no-referrer',
): Promise<void> {
  await app.register(helmet, {
    // Exactly this policy: helmet's defaults would add `upgrade-insecure-requests`, which breaks
    // the page on a plain-HTTP address such as http://127.0.0.1:3000.
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_CSP },
    referrerPolicy: { policy: referrerPolicy },
    // The same as `frame-ancestors 'none'`, for browsers that predate it.
    xFrameOptions: { action: 'deny' },
    // HSTS is for whoever terminates TLS (it knows the scheme and the domain's other hosts).
    strictTransportSecurity: false,
  });
}
