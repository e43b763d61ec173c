import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createKey } from '../../src/domain/keys.js';
import { enginesUnderTest, makeEngineStore } from '../engines.js';
import { auth, load, makeApp } from '../helpers.js';
import { M, searchRecords } from '../v2/search-fixture.js';

/**
 * R17 in a real browser: the pages work under their Content-Security-Policy — the admin page's
 * script runs and draws the report — and the policy is enforced (an inline script is refused,
 * framing is refused). Chromium from the system (Debian package `chromium`), driven by
 * playwright-core; run with `npm run test:browser` (LEADLINE_CHROMIUM names another binary).
 */
const CHROMIUM = process.env.LEADLINE_CHROMIUM ?? '/usr/bin/chromium';

/** Every CSP violation a document reports, kept on the window for the test to read. */
const RECORD_VIOLATIONS = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

for (const engine of enginesUnderTest()) {
  describe(`R17: the pages in Chromium [${engine}]`, () => {
    let app: FastifyInstance;
    let browser: Browser;
    let base = '';
    let cleanup: () => Promise<void>;
    const key = { admin: '', member: '' };
    const ids = { admin: 0, member: 0 };
    before(async () => {
      const made = await makeEngineStore(engine);
      cleanup = made.cleanup;
      await load(made.store, searchRecords());
      for (const [name, member] of [
        ['admin', M.admin],
        ['member', M.mia],
      ] as const) {
        const k = await createKey(made.store, { member, legacyV1: true });
        key[name] = k.key;
        ids[name] = k.id;
      }
      app = await makeApp(made.store);
      // Usage for the report: written when the app closes, read by the next one.
      assert.equal(
        (await app.inject({ url: '/api/pub/leads/getLastLead', headers: auth(key.member) })).statusCode,
        200,
      );
      await app.close();
      app = await makeApp(made.store);
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    });
    after(async () => {
      await browser?.close();
      await app.close();
      await cleanup();
    });

    async function open(url: string): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (msg) => {
        // The browser's own favicon request is the one 404 a page without a favicon causes.
        if (msg.location().url.endsWith('/favicon.ico')) return;
        if (msg.type() === 'error' || /Content.Security.Policy/i.test(msg.text())) {
          problems.push(`${msg.text()} (${msg.location().url})`);
        }
      });
      await page.addInitScript(RECORD_VIOLATIONS);
      await page.goto(`${base}${url}`);
      return { page, problems };
    }

    // Code that runs in the page is written as strings: the project's types have no DOM.
    const violations = (page: Page) => page.evaluate<string[]>('window.__violations');
    const style = (page: Page, selector: string, property: string) =>
      page.evaluate<string>(`getComputedStyle(document.querySelector('${selector}')).${property}`);

    it("/admin's script runs under the policy: the report is drawn, with no violation", async () => {
      const { page, problems } = await open('/admin');
      await page.fill('#key', key.admin);
      await page.fill('#days', '7');
      await page.click('button');
      await page.waitForSelector('#rows tr');
      const rows = await page.locator('#rows tr td:first-child').allTextContents();
      assert.deepEqual(rows, [String(ids.admin), String(ids.member)]);
      assert.equal(await page.locator('#chart rect').count(), 7);
      // The stylesheet applied (a file, not inline): on-v1 rows are tinted.
      assert.equal(await style(page, '#rows tr.on-v1', 'backgroundColor'), 'rgb(253, 226, 226)');
      // The key stays in the tab: a reload finds it in sessionStorage, filled in by the script.
      await page.reload();
      await page.waitForFunction(`document.getElementById('key').value === ${JSON.stringify(key.admin)}`);
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('a doc page is styled by its stylesheet, with no violation', async () => {
      const { page, problems } = await open('/docs/v2');
      assert.equal(await style(page, 'body', 'maxWidth'), '832px'); // 52rem
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('the policy holds: an inline script is refused, and no other page may frame /admin', async () => {
      const { page, problems } = await open('/admin');
      await page.evaluate(`{
        const s = document.createElement('script');
        s.textContent = 'window.__inline = true';
        document.head.append(s);
      }`);
      await page.waitForFunction('window.__violations.length > 0');
      assert.equal(await page.evaluate('window.__inline'), undefined);
      assert.match((await violations(page)).join('\n'), /^script-src/m);
      assert.ok(problems.some((p) => /Content.Security.Policy/i.test(p)));
      // A page of another origin (localhost is not 127.0.0.1) framing /admin: the frame stays empty.
      const framer = await browser.newPage();
      await framer.goto(`${base.replace('127.0.0.1', 'localhost')}/healthz`);
      await framer.evaluate(`new Promise((loaded) => {
        const f = document.createElement('iframe');
        f.src = '${base}/admin';
        f.addEventListener('load', loaded);
        document.body.append(f);
      })`);
      const frame = framer.frames().find((f) => f !== framer.mainFrame());
      assert.ok(frame !== undefined);
      assert.equal(
        await frame.$('#form').catch(() => null),
        null,
        'the admin form is not shown in the frame',
      );
      await framer.close();
      await page.close();
    });
  });
}
