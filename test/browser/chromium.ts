import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type EngineName, type EngineStore, makeEngineStore } from '../support/engines.js';
import { makeApp } from '../support/helpers.js';

/**
 * What every browser test shares: Debian's Chromium (LEADLINE_CHROMIUM names another binary),
 * driven by playwright-core; the recording of the CSP violations a document reports; and, for
 * the pages' tests, the app served on a port of its own with a browser beside it.
 */
const CHROMIUM = process.env.LEADLINE_CHROMIUM ?? '/usr/bin/chromium';

/** Chromium, headless, with its own background traffic (updates, sync, QUIC) off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Every CSP violation a document reports, kept on the window for the test to read. */
const RECORD_VIOLATIONS = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

/** Records the CSP violations of every document `target` (a page or a whole context) loads next. */
export async function recordViolations(target: Page | BrowserContext): Promise<void> {
  await target.addInitScript(RECORD_VIOLATIONS);
}

/** The CSP violations recorded on `page` (after `recordViolations`): directive and blocked URI. */
export function violations(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__violations');
}

/** The served app's address and the browser, for the tests. */
export interface Served {
  base: string;
  browser: Browser;
}

/**
 * Registered in the calling `describe`: before its tests, a store on `engine`, the app over it
 * listening on 127.0.0.1 (a port of its own) and Chromium, handed to `use`; after them, all closed.
 */
export function servedInChromium(engine: EngineName, use: (served: Served) => void): void {
  let made: EngineStore | undefined;
  let app: FastifyInstance | undefined;
  let browser: Browser | undefined;
  before(async () => {
    made = await makeEngineStore(engine);
    app = await makeApp(made.store);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    use({ base, browser });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await made?.cleanup();
  });
}
