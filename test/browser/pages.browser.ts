import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { enginesUnderTest } from '../support/engines.js';
import { recordViolations, servedInChromium, violations } from './chromium.js';

/**
 * R17 in a real browser: the pages are styled by their own files under their Content-Security-
 * Policy, and the policy is enforced (an inline script is refused, framing is refused). The
 * console's script and chart under the same policy: test/browser/console.browser.ts. Chromium
 * from the system (Debian package `chromium`), driven by playwright-core; run with
 * `npm run test:browser` (LEADLINE_CHROMIUM names another binary).
 */
/** The console's sign-in page: a form, shown for any link (only its POST checks the link). */
const SIGN_IN = `/console/sign-in/${'0'.repeat(64)}`;
for (const engine of enginesUnderTest()) {
  describe(`R17: the pages in Chromium [${engine}]`, () => {
    let browser: Browser;
    let base = '';
    servedInChromium(engine, (s) => ({ base, browser } = s));

    async function open(url: string): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (msg) => {
        // Every console error counts, the browser's own /favicon.ico request's included (issue 37).
        if (msg.type() === 'error' || /Content.Security.Policy/i.test(msg.text())) {
          problems.push(`${msg.text()} (${msg.location().url})`);
        }
      });
      await recordViolations(page);
      await page.goto(`${base}${url}`);
      return { page, problems };
    }

    // Code that runs in the page is written as strings: the project's types have no DOM.
    const style = (page: Page, selector: string, property: string) =>
      page.evaluate<string>(`getComputedStyle(document.querySelector('${selector}')).${property}`);

    it('a doc page is styled by its stylesheet, with no violation', async () => {
      const { page, problems } = await open('/docs/v2');
      assert.equal(await style(page, 'body', 'maxWidth'), '832px'); // 52rem
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('the site has an icon: /favicon.ico answers, and the browser asks for nothing that 404s', async () => {
      const res = await fetch(`${base}/favicon.ico`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/svg+xml');
      assert.match(await res.text(), /^<svg /);
      const page = await browser.newPage();
      const missing: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(`${base}/docs/v2`);
      // The browser fetches the icon after the page has loaded.
      await page.waitForResponse((r) => r.url().endsWith('/favicon.ico'), { timeout: 5_000 }).catch(() => {});
      assert.deepEqual(missing, []);
      await page.close();
    });

    it('the policy holds: an inline script is refused, and no other page may frame the console', async () => {
      const { page, problems } = await open(SIGN_IN);
      await page.evaluate(`{
        const s = document.createElement('script');
        s.textContent = 'window.__inline = true';
        document.head.append(s);
      }`);
      await page.waitForFunction('window.__violations.length > 0');
      assert.equal(await page.evaluate('window.__inline'), undefined);
      assert.match((await violations(page)).join('\n'), /^script-src/m);
      assert.ok(problems.some((p) => /Content.Security.Policy/i.test(p)));
      // A page of another origin (localhost is not 127.0.0.1) framing the console: the frame stays empty.
      const framer = await browser.newPage();
      await framer.goto(`${base.replace('127.0.0.1', 'localhost')}/healthz`);
      await framer.evaluate(`new Promise((loaded) => {
        const f = document.createElement('iframe');
        f.src = '${base}${SIGN_IN}';
        f.addEventListener('load', loaded);
        document.body.append(f);
      })`);
      const frame = framer.frames().find((f) => f !== framer.mainFrame());
      assert.ok(frame !== undefined);
      assert.equal(
        await frame.$('form').catch(() => null),
        null,
        'the sign-in form is not shown in the frame',
      );
      await framer.close();
      await page.close();
    });
  });
}
