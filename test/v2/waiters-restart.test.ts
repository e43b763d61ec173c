import assert from 'node:assert/strict';
import { Agent, type ClientRequest, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { eventually, keyFor, load, makeApp } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { assertV2Ok, get, post, V2 } from './client.js';

/**
 * Issue 41: no waiting client misses or repeats a lead across a server restart. 50 clients of a
 * `leadline serve` process (25 Server-Sent Events, 25 long-polls re-issuing `wait=30`) on
 * /leads/changes; the server is killed (SIGKILL, then in a second round SIGTERM) just after a
 * lead is stored, more leads are stored by another instance while it is down and after it is
 * back; the SSE clients come back with `Last-Event-ID`, the long-pollers with their last
 * pollCursor (to the restarted server's new port, as a client behind a stable address would).
 * Every client must then hold every lead, once, in the order stored. bench/waiters.ts does the
 * same at 10,000 clients and measures it.
 */
const TEAM = 831;
const ADMIN = 8311;
const CLIENTS = 50;
const SETTINGS = { LEADLINE_FEED_HEARTBEAT_SECONDS: '1', LEADLINE_FEED_MAX_WAIT_SECONDS: '30' };
/** Generous: how long the clients may take to come back and catch up, never a latency claim. */
const CATCH_UP_MS = 60_000;

class Waiter {
  seen: string[] = [];
  /** The SSE client's Last-Event-ID, or the long-poller's pollCursor. */
  cursor: string;
  ready = false;
  reconnects = 0;
  private req: ClientRequest | null = null;
  private stopped = false;

  constructor(
    private readonly kind: 'sse' | 'poll',
    private readonly base: () => string,
    private readonly key: string,
    private readonly agent: Agent,
    cursor: string,
  ) {
    this.cursor = cursor;
  }

  open(): void {
    if (this.stopped) return;
    if (this.kind === 'sse') this.stream();
    else this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.req?.destroy();
  }

  private lost(): () => void {
    let done = false;
    return () => {
      if (done || this.stopped) return;
      done = true;
      this.reconnects++;
      setTimeout(() => this.open(), 100 + Math.random() * 200);
    };
  }

  private stream(): void {
    const lost = this.lost();
    const headers = {
      authorization: `Bearer ${this.key}`,
      accept: 'text/event-stream',
      'last-event-id': this.cursor,
    };
    this.req = request(`${this.base()}${V2}/changes`, { agent: this.agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', lost);
        return;
      }
      this.ready = true;
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const fields = new Map<string, string>();
          for (const line of buffer.slice(0, end).split('\n')) {
            const at = line.indexOf(': ');
            if (at > 0) fields.set(line.slice(0, at), line.slice(at + 2));
          }
          buffer = buffer.slice(end + 2);
          if (fields.get('event') === 'lead')
            this.seen.push((JSON.parse(fields.get('data')!) as { leadId: string }).leadId);
          const id = fields.get('id');
          if (id !== undefined) this.cursor = id;
        }
      });
      res.on('end', lost);
      res.on('close', lost);
      res.on('error', lost);
    });
    this.req.on('error', lost);
    this.req.end();
  }

  private poll(): void {
    const lost = this.lost();
    const q = `?wait=30&cursor=${encodeURIComponent(this.cursor)}`;
    const headers = { authorization: `Bearer ${this.key}` };
    this.req = request(`${this.base()}${V2}/changes${q}`, { agent: this.agent, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', lost);
      res.on('aborted', lost);
      res.on('end', () => {
        if (res.statusCode !== 200) return lost();
        const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
          data: { leads: { leadId: string }[]; pollCursor: string };
        };
        this.seen.push(...body.data.leads.map((l) => l.leadId));
        this.cursor = body.data.pollCursor;
        setImmediate(() => this.open());
      });
    });
    this.req.on('error', lost);
    this.req.on('finish', () => {
      this.ready = true;
    });
    this.req.end();
  }
}

for (const engine of enginesUnderTest()) {
  describe(`waiting clients across a server restart [${engine}]`, () => {
    let made: EngineStore;
    /** Another instance on the same store: it stores the leads, and is never restarted. */
    let writer: FastifyInstance;
    let server: ServerProcess;
    let key: string;
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
    const waiters: Waiter[] = [];

    before(async () => {
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Restart Co' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@restart.test', role: 'admin', pid: 'r1' },
      ]);
      key = await keyFor(made.store, ADMIN);
      writer = await makeApp(made.store);
      server = await startServerProcess(storeArgs(made.location), SETTINGS);
    });
    after(async () => {
      for (const w of waiters) w.stop();
      agent.destroy();
      await stopAll();
      await writer?.close();
      await made?.cleanup();
    });

    const create = async (name: string): Promise<string> => {
      const res = await post(writer, V2, key, {
        leadSource: 'QR_CODE_SCAN',
        captureDatetime: new Date().toISOString(),
        systemFields: { fullName: name },
      });
      return (assertV2Ok(res, 201).data as { leadId: string }).leadId;
    };
    /** Until every client holds every lead of `ids` (each exactly once, in order: asserted after). */
    const allHave = (ids: string[]) =>
      eventually(async () => {
        for (const w of waiters) for (const id of ids) assert.ok(w.seen.includes(id), 'not received yet');
      }, CATCH_UP_MS);

    it('every SSE and long-poll client gets every lead exactly once, in order, across SIGKILL and SIGTERM', async () => {
      const start = (assertV2Ok(await get(writer, `${V2}/changes`, key)).data as { pollCursor: string })
        .pollCursor;
      for (let i = 0; i < CLIENTS; i++)
        waiters.push(new Waiter(i % 2 === 0 ? 'sse' : 'poll', () => server.url, key, agent, start));
      for (const w of waiters) w.open();
      await eventually(async () => assert.ok(waiters.every((w) => w.ready)), CATCH_UP_MS);
      const created: string[] = [];
      for (const name of ['A1', 'A2', 'A3']) created.push(await create(name));
      await allHave(created);

      for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
        const before = waiters.map((w) => w.reconnects);
        // Stored, then the server goes at once: some clients may not have had it yet.
        created.push(await create(`${signal} on`));
        await server.stop(signal);
        // Stored while no server holds the clients.
        for (const name of ['down 1', 'down 2']) created.push(await create(`${signal} ${name}`));
        server = await startServerProcess(storeArgs(made.location), SETTINGS);
        for (const name of ['back 1', 'back 2']) created.push(await create(`${signal} ${name}`));
        await allHave(created);
        // Each client did lose its connection and come back (not one that slept through).
        for (const [i, w] of waiters.entries())
          assert.ok(w.reconnects > before[i]!, `client ${i} reconnected`);
      }
      for (const [i, w] of waiters.entries())
        assert.deepEqual(
          w.seen,
          created,
          `client ${i} (${i % 2 === 0 ? 'SSE' : 'long-poll'}): every lead once, in order`,
        );
    });
  });
}
