import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLeadline, LeadlineError, type LoggedEvent } from '../../packages/client/src/index.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually, makeApp } from '../support/helpers.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { BERLIN, buildFixture, type Fixture } from '../v1/fixtures.js';

/**
 * `leadline.events.follow()` (issue 41 §6, docs/client.md "Following the event log") against a
 * listening leadline on each engine, through a TCP proxy the test cuts: it long-polls the event
 * log, yields the events stored after it started, and goes on after a dropped connection and
 * after the server is restarted — nothing missed, nothing repeated; an expired cursor is a
 * LeadlineError 410 the caller catches.
 */

const SETTINGS = { LEADLINE_FEED_MAX_WAIT_SECONDS: '30' };

/** Pulls events from the iterator one by one, each with a deadline (a hung follow fails, never hangs). */
class Taker {
  constructor(private readonly it: AsyncIterator<LoggedEvent>) {}
  async take(label: string, ms = 30_000): Promise<LoggedEvent> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      this.it.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no event in time: ${label}`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.ok(next.done !== true, 'the follow ended');
    return next.value;
  }
}

for (const engine of enginesUnderTest()) {
  describe(`@leadline/client events.follow (${engine})`, () => {
    let fx: Fixture;
    /** The instance the follower reads, behind the proxy; restarted by the test. */
    let app: FastifyInstance;
    let port: number;
    /** Where leads are created: another instance on the same store. */
    let writer: FastifyInstance;
    let writerBase: string;
    let proxy: TcpProxy;

    before(async () => {
      fx = await buildFixture(engine);
      app = await makeApp(fx.store, SETTINGS);
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as AddressInfo).port;
      writer = await makeApp(fx.store, SETTINGS);
      writerBase = await writer.listen({ host: '127.0.0.1', port: 0 });
      proxy = new TcpProxy('127.0.0.1', port);
      await proxy.start();
    });
    after(async () => {
      await proxy?.cut();
      await app?.close();
      await writer?.close();
      await fx?.cleanup();
    });

    const key = () => fx.key(BERLIN.teamAdmin);
    const create = async (name: string): Promise<string> => {
      const w = createLeadline({ baseUrl: writerBase, apiKey: key() });
      return (await w.leads.create({ leadSource: 'MANUAL', systemFields: { fullName: name } })).leadId;
    };

    test('yields the events after it started, and resumes after a dropped connection and a restart', async () => {
      const direct = createLeadline({ baseUrl: writerBase, apiKey: key() });
      // Start from now (the log's end, as a fresh follower persisted it), with the types it follows.
      const types = 'lead.created';
      let start = await direct.events.list({ limit: 1000, types });
      while (start.nextCursor !== null)
        start = await direct.events.list({ limit: 1000, types, cursor: start.nextCursor });
      const stop = new AbortController();
      const cursors: string[] = [];
      const client = createLeadline({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: key() });
      const follow = client.events.follow({
        cursor: start.pollCursor,
        types: ['lead.created'],
        wait: 20,
        baseDelayMs: 50,
        maxDelayMs: 200,
        signal: stop.signal,
        onCursor: (c) => cursors.push(c),
      });
      const events = new Taker(follow[Symbol.asyncIterator]());
      const got: LoggedEvent[] = [];
      try {
        let next = events.take('one');
        const one = await create('Follow One');
        got.push(await next);
        assert.equal((got[0]!.data as { leadId: string }).leadId, one);

        // A dropped connection while the follower waits (an async iterator reads when pulled: the
        // pull comes first); a lead is stored while it cannot reach the server.
        const waiting = () => assert.equal(fx.store.feed.waiting(), 1);
        next = events.take('two');
        await eventually(async () => waiting());
        await proxy.cut();
        const two = await create('Follow Two');
        await proxy.restore();
        got.push(await next);
        assert.equal((got[1]!.data as { leadId: string }).leadId, two);

        // The server restarted: its waits answered as it closes, connections refused until it is back.
        next = events.take('three');
        await eventually(async () => waiting());
        // (The proxy's port closes with it: connections are refused, as a stopped server's.)
        await app.close();
        await proxy.cut();
        const three = await create('Follow Three');
        app = await makeApp(fx.store, SETTINGS);
        await app.listen({ host: '127.0.0.1', port });
        await proxy.restore();
        const four = await create('Follow Four');
        got.push(await next, await events.take('four'));
        assert.deepEqual(
          got.map((e) => (e.data as { leadId: string }).leadId),
          [one, two, three, four],
          'every event once, in order',
        );
        assert.equal(new Set(got.map((e) => e.id)).size, 4);
        assert.ok(cursors.length > 0, 'the resume points were handed out');
      } finally {
        stop.abort();
        await follow.return(undefined).catch(() => {});
      }

      // From the last cursor it handed out: exactly the events yielded since it (its page's
      // cursor is handed out once they are handled) — no gap between the two, nothing else.
      const after = await direct.events.list({ cursor: cursors.at(-1)!, types });
      assert.ok(after.events.length >= 1);
      assert.deepEqual(
        after.events.map((e) => e.id),
        got.slice(-after.events.length).map((e) => e.id),
      );
    });

    test('an expired cursor is a LeadlineError 410 to catch and resynchronise', async () => {
      const direct = createLeadline({ baseUrl: writerBase, apiKey: key() });
      const old = (await direct.events.list({ limit: 1 })).nextCursor!;
      assert.ok(old !== null);
      while ((await fx.store.deliveries.dispatch(1000, Date.now())) > 0);
      const now = Date.now() + 1;
      await fx.store.deliveries.expire(0, now, now);
      const err = await (async () => {
        for await (const _ of direct.events.follow({ cursor: old, wait: 1 })) void _;
      })().catch((e: unknown) => e);
      assert.ok(err instanceof LeadlineError, String(err));
      assert.equal(err.status, 410);
      assert.match(err.problem?.type ?? '', /cursor-expired$/);
    });
  });
}
