import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { EngineStore } from '../support/engines.js';
import { recordViolations, violations } from './chromium.js';

/**
 * What the console's browser tests share (console*.browser.ts) besides Chromium (./chromium.ts):
 * the sign-in link as `leadline console link` prints it, and the checks every view gets — CSP
 * quiet, axe-core clean, no sideways scroll at 390 px, screenshots at 1280 and 390 px in
 * test-results/console/ (docs/console.md lists them).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHOTS = `${ROOT}test-results/console/`;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** `leadline console link …` as an operator runs it (the CLI from source, no build needed). */
export function cliLink(location: EngineStore['location'], base: string, who: string[]): string {
  const where =
    location.databaseUrl === null ? ['--db', location.dbPath] : ['--database-url', location.databaseUrl];
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', ...where, 'console', 'link', ...who],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '', LEADLINE_PUBLIC_URL: base },
      timeout: 60_000,
    },
  );
  assert.equal(r.status, 0, `leadline console link: ${r.stderr}`);
  const url = r.stdout.split('\n')[0]!;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/console\/sign-in\/[0-9a-f]{64}$/);
  return url;
}

/**
 * A browser context at 1280 px that records CSP violations; requests to another origin than
 * `base` go to `foreign`, page errors and console errors to `problems`; dialogs are accepted.
 */
export async function consoleContext(
  browser: Browser,
  base: string,
  foreign: string[],
  problems: string[],
): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await recordViolations(ctx);
  const page = await ctx.newPage();
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== base) foreign.push(r.url());
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  // Every console error (issue 37), a CSP report's included, except the status of a page the
  // test opened on purpose (a 401, 403 or 404 page is what it checks): a failed style sheet,
  // script, icon or chart is one.
  page.on('console', (m) => {
    const own = /^Failed to load resource/.test(m.text()) && m.location().url === page.url();
    if ((m.type() === 'error' && !own) || /Content.Security.Policy/i.test(m.text())) {
      problems.push(`${m.text()} (${m.location().url})`);
    }
  });
  page.on('dialog', (d) => void d.accept());
  return { ctx, page };
}

/**
 * Records the `Origin` each form POST to `base` carried: the console refuses `Origin: null`
 * (issue 36), so its pages must make the browser name their origin (Referrer-Policy: same-origin).
 */
export function recordPostOrigins(page: Page, base: string, into: Promise<string | null>[]): void {
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).origin === base) into.push(r.headerValue('origin'));
  });
}

/** The checks every view gets: CSP quiet, axe clean, screenshots at both widths. */
export async function checkView(page: Page, name: string): Promise<void> {
  assert.deepEqual(await violations(page), [], `${name}: CSP violations`);
  await page.evaluate(AXE);
  const found = await page.evaluate<{ id: string; impact: string; nodes: number }[]>(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${name}: axe found ${JSON.stringify(bad)}`);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  // The chart follows the window's size on its resize event.
  await page.waitForTimeout(200);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.scroll'))
    .map((e) => e.tagName + (e.id ? '#' + e.id : '') + ' ' + Math.round(e.getBoundingClientRect().right))`);
  assert.ok(
    overflow <= 1,
    `${name}: the page scrolls sideways at 390 px (${overflow}px): ${wide.join(', ')}`,
  );
  await page.screenshot({ path: `${SHOTS}${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}
