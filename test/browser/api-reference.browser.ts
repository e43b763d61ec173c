import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { recordViolations, servedInChromium, violations } from './chromium.js';

/**
 * The API reference at /docs (issue 14 §2) in a real browser: Redoc renders the whole OpenAPI
 * document from the server's own files — no request leaves for another origin, no CSP
 * violation, no script error — v1's operations are marked deprecated and link to their v2
 * replacement, and the link leads there (Redoc's footer logo, on Redocly's CDN, is taken out of the
 * served bundle: issue 37). The site's links are at its top. Chromium from Debian's package, as the other pages.
 */
describe('/docs: the API reference in Chromium', () => {
  let browser: Browser;
  let base = '';
  servedInChromium('sqlite', (s) => ({ base, browser } = s));

  it('renders every operation from local files, v1 deprecated and pointing at v2', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`${msg.text()} (${msg.location().url})`);
    });
    // A request to another origin that the policy did not stop (one it stops fails as 'csp').
    const foreign = (url: string) =>
      !url.startsWith(base) && !url.startsWith('blob:') && !url.startsWith('data:');
    page.on('response', (res) => {
      if (foreign(res.url())) elsewhere.push(res.url());
    });
    page.on('requestfailed', (req) => {
      if (foreign(req.url()) && req.failure()?.errorText !== 'csp') elsewhere.push(req.url());
    });
    await recordViolations(page);
    await page.goto(`${base}/docs`);
    // Redoc is done when the operations' headings are on the page.
    await page.waitForSelector('text=getLeadsTimeRangeForTeam', { timeout: 30_000 });
    const text = await page.evaluate<string>('document.body.innerText');
    for (const op of ['Search leads', 'getLastLead', 'Register an endpoint', 'lead.created', 'Liveness']) {
      assert.ok(text.includes(op), `the reference shows ${op}`);
    }
    const deprecated = await page.locator('text=Deprecated').count();
    assert.ok(deprecated >= 5, `the five v1 operations are marked deprecated (${deprecated})`);
    // The v1 operation's description links to the v2 operation's anchor, and it exists.
    const link = page.locator('a[href="#tag/v2/operation/searchLeads"]').first();
    assert.ok((await link.count()) > 0, 'a link to Search Leads');
    assert.ok((await page.locator('[id="tag/v2/operation/searchLeads"]').count()) > 0, 'its target exists');
    // Redoc's footer logo (Redocly's CDN) is not in the served bundle: no CSP violation at all,
    // no console error (the favicon's 404 included), nothing fetched from another origin.
    assert.deepEqual(await violations(page), [], 'no CSP violation');
    assert.deepEqual(problems, [], 'no console error');
    // The site's links, as on every other page.
    for (const href of ['/', '/docs/v2', '/docs/v1-migration', '/docs/cli', '/console/keys']) {
      assert.equal(await page.locator(`nav.site a[href="${href}"]`).count(), 1, `a link to ${href}`);
    }
    // The version beside the title says whose it is, and the guides named are links.
    assert.match(text, /API version 2\.0\.0: the version of the interface/);
    assert.ok((await page.locator('#reference a[href="/docs/v2"]').count()) > 0, 'the v2 guide is a link');
    assert.doesNotMatch(text, /docs\/[a-z0-9-]+\.md/, 'no guide named as a file');
    assert.deepEqual(elsewhere, [], 'nothing fetched from another origin');
  });

  it('sends its policy: scripts from the server only, no inline script', async () => {
    const res = await fetch(`${base}/docs`);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    assert.doesNotMatch(await res.text(), /<script>(?!<\/script>)/, 'no inline script');
  });
});
