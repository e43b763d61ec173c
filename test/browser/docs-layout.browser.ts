import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { servedInChromium } from './chromium.js';

/**
 * The pages read at a desktop width (1280 px) and a phone's (390 px) in Chromium (issue 22 §9):
 * the page itself never scrolls sideways, no table cell's content spills out of its cell (long
 * code wraps; a table wider than the screen scrolls inside itself), and the links back are on
 * top. Screenshots are written to $TMPDIR/leadline-screenshots/ for a person to look at.
 */
const SHOTS = join(tmpdir(), 'leadline-screenshots');
const PAGES = ['/docs/cli', '/', '/problems/invalid-parameters', '/docs/v2'];

describe('pages at 1280 px and 390 px in Chromium', () => {
  let browser: Browser;
  let base = '';
  servedInChromium('sqlite', (s) => ({ base, browser } = s));
  before(() => mkdirSync(SHOTS, { recursive: true }));

  for (const width of [1280, 390]) {
    for (const path of PAGES) {
      it(`${path} at ${width} px: no sideways page scroll, nothing spills out of a table cell`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(`${base}${path}`);
        const layout = await page.evaluate<{
          page: number;
          view: number;
          spills: string[];
          nav: number;
        }>(`(() => {
          const spills = [];
          for (const cell of document.querySelectorAll('td, th')) {
            if (cell.scrollWidth > cell.clientWidth + 1) spills.push(cell.textContent.slice(0, 60));
          }
          return {
            page: document.documentElement.scrollWidth,
            view: window.innerWidth,
            spills,
            nav: document.querySelectorAll('nav.site a').length,
          };
        })()`);
        const name = `${path === '/' ? 'home' : path.slice(1).replaceAll('/', '-')}-${width}.png`;
        await page.screenshot({ path: join(SHOTS, name), fullPage: false });
        await page.close();
        assert.ok(
          layout.page <= layout.view,
          `the page is ${layout.page} px wide in a ${layout.view} px window`,
        );
        assert.deepEqual(layout.spills, [], 'cells whose content spills out');
        assert.ok(layout.nav >= 6, 'the links back are on the page');
      });
    }
  }
});
