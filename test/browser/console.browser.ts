import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { createSignInLink } from '../../src/console/sign-in.js';
import type { Store } from '../../src/store.js';
import { twoTeams } from '../console/two-teams.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { testConfig } from '../support/helpers.js';
import { launchChromium } from './chromium.js';
import { checkView, cliLink, consoleContext, recordPostOrigins } from './console-kit.js';

/**
 * Issue 15 in a real browser (Debian's Chromium through playwright-core, `npm run test:browser`):
 * a team admin signs in with a link printed by `leadline console link`, creates a key (secret
 * shown once), the key answers v1 once the operator grants it legacy access in the console, the
 * v1 view charts its calls, an operator's brownout makes v1 answer 410 for it, the admin revokes
 * it and it is refused. Tampered URLs, a change without its CSRF token and a used link are
 * refused. On every view: axe-core finds no serious or critical violation, no request leaves for
 * another origin, the CSP reports nothing; screenshots at 1280 and 390 px go to
 * test-results/console/ (docs/console.md).
 */
const A = 1531;
const B = 1532;
const UA = 'curl/8.5.0';

/**
 * The v1 chart's axes and lines (issue 37), read from what console.js records on the chart: the
 * counts' axis shows whole numbers only, the dates' labels do not overlap at the chart's width,
 * and no two series are drawn alike (same counts would hide one under the other).
 */
async function checkChart(page: Page): Promise<void> {
  const chart = page.locator('#chart');
  const read = async (name: string) => JSON.parse((await chart.getAttribute(name)) ?? 'null');
  const y = (await read('data-y-ticks')) as { label: string }[];
  assert.ok(y.length >= 2, 'the counts have ticks');
  for (const t of y) assert.match(t.label, /^\d+$/, `whole-number counts only: ${t.label}`);
  const x = (await read('data-x-ticks')) as { label: string; at: number }[];
  // A date's width in the chart's axis font (uPlot's default, 12px system-ui).
  const width = await page.evaluate<number>(`(() => {
    const c = document.createElement('canvas').getContext('2d');
    c.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", Arial, sans-serif';
    return c.measureText('2026-11-28').width;
  })()`);
  for (let i = 1; i < x.length; i++) {
    assert.ok(
      x[i]!.at - x[i - 1]!.at > width + 4,
      `dates overlap: ${JSON.stringify(x)} (a date is ${width}px)`,
    );
  }
  const series = (await read('data-series')) as unknown[];
  assert.ok(series.length >= 2, 'two series');
  assert.equal(
    new Set(series.map((s) => JSON.stringify(s))).size,
    series.length,
    'each series drawn its own way',
  );
}

for (const engine of enginesUnderTest()) {
  describe(`the admin console in Chromium [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let browser: Browser;
    let base = '';
    const foreign: string[] = [];
    const problems: string[] = [];

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: 15311, teamId: A, email: 'ana@a.test', name: 'Ana', role: 'admin' },
          {
            type: 'member',
            id: 15312,
            teamId: A,
            email: 'rui@a.test',
            name: 'Rui',
            role: 'member',
            pid: 'p-rui',
          },
          // A long address and name: the create-key form's member select must not widen a phone's page.
          {
            type: 'member',
            id: 15313,
            teamId: A,
            email: 'maria.fernanda.dos.santos.albuquerque@sales-department.a.test',
            name: 'Maria Fernanda dos Santos Albuquerque',
            role: 'member',
          },
          { type: 'member', id: 15321, teamId: B, email: 'bo@b.test', role: 'admin' },
          { type: 'lead', userId: 15312, id: 'l-1', epoch: 1_760_000_000_000, isLead: true },
        ],
      );
      store = made.store;
      app = await buildApp({ config: testConfig({ LEADLINE_USAGE_FLUSH_MS: '100' }), store });
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await app?.close();
      await made?.cleanup();
    });

    const context = (): Promise<{ ctx: BrowserContext; page: Page }> =>
      consoleContext(browser, base, foreign, problems);

    const v1 = (key: string) =>
      fetch(`${base}/api/pub/leads/getLastLead`, {
        headers: { authorization: `Bearer ${key}`, 'user-agent': UA },
      });

    it('someone who never signed in is told so and how to sign in, with no link back to the same page', async () => {
      const { ctx, page } = await context();
      assert.equal((await page.goto(`${base}/console/keys`))?.status(), 401);
      const text = await page.locator('main').innerText();
      assert.match(text, /You are not signed in\./);
      assert.doesNotMatch(text, /session has ended/);
      assert.doesNotMatch(text, /`/, 'no Markdown backticks');
      assert.equal(await page.locator('main code').innerText(), 'leadline console link');
      assert.equal(await page.getByRole('link', { name: 'Back to the console' }).count(), 0);
      await checkView(page, 'not-signed-in');
      assert.deepEqual(problems, []);
      await ctx.close();
    });

    it('from a sign-in link to a key, its v1 calls charted, a brownout, revocation; isolation and CSRF hold', async () => {
      const { ctx: adminCtx, page: admin } = await context();
      const origins: Promise<string | null>[] = [];
      recordPostOrigins(admin, base, origins);
      const link = cliLink(made.location, base, ['--member', 'ana@a.test']);
      await admin.goto(link);
      await checkView(admin, 'sign-in');
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.waitForURL(`${base}/console/keys`);
      await checkView(admin, 'keys');

      await admin.getByLabel('Member').selectOption({ label: 'rui@a.test (Rui)' });
      await admin.getByLabel(/^Label/).fill('crm sync');
      await admin.getByRole('button', { name: 'Create key' }).click();
      const secret = await admin.locator('#secret').inputValue();
      assert.match(secret, /^llk_[0-9A-Za-z]{36}$/);
      await checkView(admin, 'key-created');
      await admin.goto(`${base}/console/keys`);
      assert.equal(await admin.locator('#secret').count(), 0, 'the secret is shown once');
      assert.equal(await admin.getByText(secret).count(), 0);

      // Made after the freeze: v1 refuses it until the operator grants legacy access.
      assert.equal((await v1(secret)).status, 403);
      const { ctx: opCtx, page: op } = await context();
      recordPostOrigins(op, base, origins);
      await op.goto(cliLink(made.location, base, ['--operator']));
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.waitForURL(`${base}/console/keys`);
      await op.goto(`${base}/console/keys?team=${A}`);
      await op
        .getByRole('button', { name: new RegExp(`Grant legacy v1 for key ${secret.slice(0, 12)}`) })
        .click();
      assert.equal((await v1(secret)).status, 200);
      assert.equal((await v1(secret)).status, 200);
      // Three calls of another operation too: two series with the same counts on the chart.
      for (let i = 0; i < 3; i++) {
        await fetch(`${base}/api/pub/leads/getLastLeadTeam?teamId=${A}`, {
          headers: { authorization: `Bearer ${secret}`, 'user-agent': UA },
        });
      }

      // The console shows its calls once the ledger is written (every 100 ms here).
      await new Promise((r) => setTimeout(r, 400));
      await admin.goto(`${base}/console/v1?days=7`);
      await admin.waitForSelector('#chart[data-drawn="true"] canvas');
      const row = admin.locator('tr', { hasText: `${secret.slice(0, 12)}…` });
      // Six calls: the refused one before the grant, the two served after it, three of the team's.
      assert.match(await row.innerText(), new RegExp(`\\t6\\t.*\\t${UA.replaceAll('.', '\\.')}\\t`));
      await checkChart(admin);
      await checkView(admin, 'v1');
      // At a phone's width, drawn again: its dates still do not run together.
      await admin.setViewportSize({ width: 390, height: 844 });
      await admin.waitForTimeout(200);
      await checkChart(admin);
      await admin.setViewportSize({ width: 1280, height: 900 });

      // A brownout scheduled by the operator: v1 answers 410 for this key during the window.
      const id = (await store.keys.list()).find((k) => k.display === secret.slice(0, 12))!.id;
      await op.goto(`${base}/console/brownouts`);
      const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
      await op.getByLabel(/^Starts/).fill(iso(Date.now() - 60_000));
      await op.getByLabel(/^Ends/).fill(iso(Date.now() + 3_600_000));
      await op.getByLabel(/^Keys/).fill(String(id));
      await op.getByRole('button', { name: 'Schedule' }).click();
      await op.getByText(/Brownout \d+ scheduled/).waitFor();
      await checkView(op, 'brownouts');
      await new Promise((r) => setTimeout(r, 600));
      assert.equal((await v1(secret)).status, 410);
      await op.goto(`${base}/console/v1?team=${A}`);
      assert.ok((await op.locator('.timeline .brownout-start').count()) >= 1, 'the timeline shows it');
      await op.goto(`${base}/console/brownouts`);
      await op
        .getByRole('button', { name: /^Remove brownout/ })
        .first()
        .click();
      await op.waitForURL(`${base}/console/brownouts`);
      assert.equal(await op.getByText('No brownout is on now.').count(), 1);
      await new Promise((r) => setTimeout(r, 600));
      assert.equal((await v1(secret)).status, 200);

      // The team's retention policy, set by its admin on the Privacy view (issue 40 §6).
      await admin.goto(`${base}/console/privacy`);
      await admin.getByLabel(/^Erase leads not changed for/).fill('400');
      await admin.getByRole('button', { name: 'Set policy' }).click();
      await admin.getByText(/Retention policy saved: leads not changed for 400 days/).waitFor();
      await checkView(admin, 'privacy');
      assert.equal((await store.retention.policy(A))?.days, 400);

      // Revoke, with confirmation: the key is refused from then on.
      await admin.goto(`${base}/console/keys`);
      await admin.locator('tr', { hasText: 'crm sync' }).getByRole('link', { name: 'Revoke…' }).click();
      await checkView(admin, 'revoke');
      await admin.getByRole('button', { name: /^Revoke key/ }).click();
      await admin.waitForURL(`${base}/console/keys`);
      assert.match(await admin.locator('tr', { hasText: 'crm sync' }).innerText(), /revoked/);
      assert.equal((await v1(secret)).status, 401);

      // Team B by URL tampering: not found; the operator's page: refused.
      const bKey = (await store.keys.list()).find((k) => k.teamId === B);
      for (const url of [
        `/console/keys?team=${B}`,
        `/console/v1?team=${B}`,
        `/console/keys/${bKey?.id ?? 999999}/revoke`,
      ]) {
        const res = await admin.goto(`${base}${url}`);
        assert.equal(res?.status(), 404, url);
      }
      assert.equal((await admin.goto(`${base}/console/brownouts`))?.status(), 403);

      // A change without the CSRF token, with the session's cookie: refused, nothing made.
      const cookie = (await adminCtx.cookies()).find((c) => c.name === 'leadline_console')!;
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      const forged = await fetch(`${base}/console/keys`, {
        method: 'POST',
        headers: {
          cookie: `${cookie.name}=${cookie.value}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'member=15312&label=forged',
        redirect: 'manual',
      });
      assert.equal(forged.status, 403);
      assert.equal(
        (await store.keys.list()).some((k) => k.label === 'forged'),
        false,
      );

      // The link is spent; signing out ends the session.
      const again = await (await browser.newContext()).newPage();
      await again.goto(link);
      await again.getByRole('button', { name: 'Sign in' }).click();
      await again.getByText('Sign-in link not valid').waitFor();
      // A link made 16 minutes ago (the CLI makes them now; the service reads the same store).
      const stale = await createSignInLink(store, 15311, Date.now() - 16 * 60_000);
      await again.goto(`${base}/console/sign-in/${stale.token}`);
      await again.getByRole('button', { name: 'Sign in' }).click();
      await again.getByText('Sign-in link not valid').waitFor();
      assert.doesNotMatch(await again.locator('main').innerText(), /`/, 'no Markdown backticks');
      assert.equal(await again.locator('main code').innerText(), 'leadline console link');
      assert.equal((await again.context().cookies()).length, 0, 'no session from a bad link');
      // A fresh link posted by another site's page (localhost is another site than 127.0.0.1):
      // refused, and the link stays unspent.
      const lure = cliLink(made.location, base, ['--member', 'ana@a.test']);
      await again.goto(`${base.replace('127.0.0.1', 'localhost')}/healthz`);
      await again.evaluate(`{
        const f = document.createElement('form');
        f.method = 'post';
        f.action = '${base}/console/sign-in';
        const i = document.createElement('input');
        i.name = 'link';
        i.value = '${lure.split('/').at(-1)}';
        f.append(i);
        document.body.append(f);
        f.submit();
      }`);
      await again.getByText('This form was sent from another site.').waitFor();
      await again.goto(lure);
      await again.getByRole('button', { name: 'Sign in' }).click();
      await again.waitForURL(`${base}/console/keys`);
      await admin.goto(`${base}/console/keys`);
      await admin.getByRole('button', { name: 'Sign out' }).click();
      await admin.getByText('You are signed out.').waitFor();
      await checkView(admin, 'signed-out');
      assert.equal((await admin.goto(`${base}/console/keys`))?.status(), 401);

      assert.deepEqual(foreign, [], 'no request to another origin');
      assert.deepEqual(problems, []);
      // Every form the console's own pages posted named the console's origin, never `null`
      // (their Referrer-Policy is same-origin): sign-ins, create, grant, brownouts, revoke, sign-out.
      const sent = await Promise.all(origins);
      assert.ok(sent.length >= 8, `${sent.length} console POSTs`);
      assert.deepEqual(new Set(sent), new Set([base]), 'Origin on the console’s own POSTs');
      await adminCtx.close();
      await opCtx.close();
    });
  });
}
