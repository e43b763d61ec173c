import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { loadWebhookConfig } from '../../src/config.js';
import { createSignInLink } from '../../src/console/sign-in.js';
import { DeliveryLoop } from '../../src/delivery/loop.js';
import { Sender } from '../../src/delivery/send.js';
import type { Store } from '../../src/store.js';
import { twoTeams } from '../console/two-teams.js';
import { type EngineStore, enginesUnderTest } from '../support/engines.js';
import { eventually, keyFor, load, testConfig } from '../support/helpers.js';
import { Receiver } from '../webhooks/receiver.js';
import { launchChromium } from './chromium.js';
import { checkView, cliLink, consoleContext } from './console-kit.js';

/**
 * Issue 15 §5 in a real browser (Debian's Chromium through playwright-core): a team admin
 * registers an endpoint through the API for a receiver on loopback that answers 500; a lead is
 * stored, the delivery loop (in process, its clock moved through the retry schedule) gives up
 * on it; the admin signs in with a link printed by `leadline console link`, finds the failed
 * delivery and its attempts in the console, replays it, and sees it delivered — the receiver got
 * it with the same webhook-id, signature verified. Another team's endpoint and delivery are not
 * found by URL, a replay without the CSRF token is refused, the operator sees every team's. On
 * every new view: axe-core, CSP, no foreign request, no sideways scroll at 390 px, screenshots
 * (console-kit.ts).
 */
const A = 1551;
const B = 1552;
const ADMIN_A = 15511;
const ADMIN_B = 15521;
const HOURS_13 = 13 * 3_600_000;

for (const engine of enginesUnderTest()) {
  describe(`the console's webhooks in Chromium [${engine}]`, () => {
    let made: EngineStore;
    let store: Store;
    let app: FastifyInstance;
    let browser: Browser;
    let loop: DeliveryLoop;
    let base = '';
    let offset = 0;
    const foreign: string[] = [];
    const problems: string[] = [];
    const receivers: Receiver[] = [];
    const context = (): Promise<{ ctx: BrowserContext; page: Page }> =>
      consoleContext(browser, base, foreign, problems);

    /** An endpoint registered through the API by `member`'s key, for a new receiver on loopback. */
    async function register(member: number, description: string): Promise<{ r: Receiver; id: string }> {
      const r = await Receiver.start();
      receivers.push(r);
      const res = await fetch(`${base}/api/pub/v2/webhooks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await keyFor(store, member)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ url: r.url, description }),
      });
      assert.equal(res.status, 201);
      const { data } = (await res.json()) as { data: { id: string; secret: string } };
      r.secrets = [data.secret];
      return { r, id: data.id };
    }

    before(async () => {
      made = await twoTeams(
        engine,
        [A, B],
        [
          { type: 'member', id: ADMIN_A, teamId: A, email: 'ana@a.test', role: 'admin', pid: 'p-ana' },
          { type: 'member', id: ADMIN_B, teamId: B, email: 'bo@b.test', role: 'admin', pid: 'p-bo' },
        ],
      );
      store = made.store;
      app = await buildApp({ config: testConfig({ LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' }), store });
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const config = loadWebhookConfig({
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '10',
      });
      const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' }, pino.destination(2));
      loop = new DeliveryLoop(store, config, logger, new Sender(config, 4), () => Date.now() + offset);
      loop.start();
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await loop?.stop();
      for (const r of receivers) await r.close();
      await app?.close();
      await made?.cleanup();
    });

    it('a failed delivery is found in the console, replayed from it and delivered; isolation and CSRF hold', async () => {
      const { r, id } = await register(ADMIN_A, 'CRM sync');
      r.answer = () => 500;
      const b = await register(ADMIN_B, 'team b hooks');
      await load(store, [
        { type: 'lead', userId: ADMIN_A, id: 'wh-a', epoch: 1_760_000_000_000, isLead: true },
        { type: 'lead', userId: ADMIN_B, id: 'wh-b', epoch: 1_760_000_000_001, isLead: true },
      ]);
      await eventually(async () => assert.equal(b.r.received.length, 1));
      // Through the retry schedule: after each attempt a jump of the loop's clock makes the next
      // one due (8 attempts, 91 hours: short of the 5 days that would disable the endpoint).
      let seen = 0;
      const [failed] = await eventually(async () => {
        const list = (await store.deliveries.deliveries('operator', id, 1))!;
        const attempts = list[0]?.attempts.length ?? 0;
        if (list[0]?.state === 'pending' && attempts > seen) {
          seen = attempts;
          offset += HOURS_13;
        }
        assert.equal(list[0]?.state, 'failed');
        return list;
      }, 60_000);
      offset = 0;
      assert.equal(failed!.attempts.length, 8);
      assert.ok(r.received.length >= 8);

      const { ctx: adminCtx, page: admin } = await context();
      await admin.goto(cliLink(made.location, base, ['--member', 'ana@a.test']));
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.waitForURL(`${base}/console/keys`);
      await admin
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await admin.waitForURL(`${base}/console/webhooks`);
      const row = admin.locator('tr', { hasText: 'CRM sync' });
      assert.match(await row.innerText(), /enabled.*1 failed\tfailed, /s);
      assert.equal(await admin.getByText('team b hooks').count(), 0, "team B's endpoint is not listed");
      await checkView(admin, 'webhooks');

      await row.getByRole('link', { name: r.url }).click();
      await admin.waitForURL(`${base}/console/webhooks/${id}`);
      const delivery = admin.locator(`#delivery-${failed!.id}`);
      // Delivery, state (and its Replay), last status, created, finished, attempts, type, webhook-id.
      const cells = async () => (await delivery.locator(':scope > td').allInnerTexts()).map((t) => t.trim());
      const shown = await cells();
      assert.deepEqual(
        [shown[0], shown[2], shown[6], shown[7]],
        [String(failed!.id), '500', 'lead.created', failed!.eventId],
      );
      assert.match(shown[1]!, /^failed Replay/);
      await delivery.getByText('8 attempts').click();
      assert.equal(await delivery.locator('.attempts li').count(), 8);
      assert.match(await delivery.locator('.attempts li').first().innerText(), /500, \d+ ms\s+ok/);
      await checkView(admin, 'webhook');

      // The receiver is fixed; the replay is one click, and the delivery arrives.
      r.answer = () => 200;
      const before = r.received.length;
      await delivery.getByRole('button', { name: `Replay delivery ${failed!.id}` }).click();
      await admin.waitForURL(`${base}/console/webhooks/${id}?replayed=${failed!.id}#delivery-${failed!.id}`);
      await admin.getByText(`Delivery ${failed!.id} is queued again, with the same webhook-id.`).waitFor();
      await eventually(async () => {
        await admin.reload();
        const now = await cells();
        assert.match(now[1]!, /^delivered Replay/);
        assert.equal(now[2], '200');
      });
      assert.equal(r.received.length, before + 1);
      assert.deepEqual(r.ids(), new Set([failed!.eventId]), 'the same webhook-id on every attempt');
      assert.deepEqual(r.forged, [], 'every request verified with the endpoint secret');
      assert.equal(await admin.getByRole('button', { name: /^Replay delivery/ }).count(), 1);
      await checkView(admin, 'webhook-replayed');

      // Team B's endpoint and delivery, by URL: not found; a replay without the token: refused.
      const [bDelivery] = (await store.deliveries.deliveries('operator', b.id, 1))!;
      for (const url of [`/console/webhooks/${b.id}`, `/console/webhooks?team=${B}`]) {
        assert.equal((await admin.goto(`${base}${url}`))?.status(), 404, url);
      }
      const cookie = (await adminCtx.cookies()).find((c) => c.name === 'leadline_console')!;
      const post = (url: string, body: string) =>
        fetch(`${base}${url}`, {
          method: 'POST',
          headers: {
            cookie: `${cookie.name}=${cookie.value}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body,
          redirect: 'manual',
        });
      await admin.goto(`${base}/console/webhooks/${id}`);
      const csrf = await admin.locator('input[name="_csrf"]').first().inputValue();
      for (const url of [
        `/console/webhooks/${b.id}/deliveries/${bDelivery!.id}/replay`,
        `/console/webhooks/${id}/deliveries/${bDelivery!.id}/replay`,
      ]) {
        assert.equal((await post(url, `_csrf=${csrf}`)).status, 404, url);
      }
      assert.equal((await post(`/console/webhooks/${id}/deliveries/${failed!.id}/replay`, '')).status, 403);
      await new Promise((done) => setTimeout(done, 300));
      assert.equal(b.r.received.length, 1, "team B's delivery was not sent again");
      assert.equal(r.received.length, before + 1, 'the forged replay sent nothing');

      // The operator sees every team's endpoints.
      const { ctx: opCtx, page: op } = await context();
      // The operator's link made as the CLI makes it (the admin's came from the CLI itself).
      await op.goto(`${base}/console/sign-in/${(await createSignInLink(store, null, Date.now())).token}`);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.waitForURL(`${base}/console/keys`);
      await op.goto(`${base}/console/webhooks`);
      assert.equal(await op.getByText('CRM sync').count(), 1);
      assert.equal(await op.getByText('team b hooks').count(), 1);
      await checkView(op, 'webhooks-operator');

      assert.deepEqual(foreign, [], 'no request to another origin');
      assert.deepEqual(problems, []);
      await adminCtx.close();
      await opCtx.close();
    });
  });
}
