import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLeadline, type Lead, LeadlineError } from '../../packages/client/src/index.js';
import { retryAfterMs } from '../../packages/client/src/retry.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually, makeApp } from '../support/helpers.js';
import { BERLIN, buildFixture, type Fixture } from '../v1/fixtures.js';

/**
 * @leadline/client (issue 14) against a listening leadline on each engine: search walks every
 * page, get, create with an Idempotency-Key kept across its retries, the change feed resumed from
 * a persisted cursor, typed errors carrying the problem and request id, and retries on 429 (the
 * server's real quota) and 503 (a proxy in front of the server that loses an answer).
 */

/** Array.fromAsync (Node 22) for Node 20. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const listen = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

/**
 * An HTTP proxy to `target` that forwards every request and passes the answer on — except the
 * first `fail` requests matching `path`, which reach the server but whose answers are replaced
 * by a 503 with `Retry-After: 1`: the client sees a failure after the server did the work.
 */
async function lossyProxy(target: string, path: string, fail: number) {
  const seen: { method: string; url: string; headers: Record<string, unknown> }[] = [];
  let failed = 0;
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } });
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        if (req.url === path && failed < fail) {
          failed++;
          answer.resume();
          res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('lost');
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

for (const engine of enginesUnderTest()) {
  describe(`@leadline/client against leadline (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    let base: string;
    const admin = () => createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.teamAdmin) });

    before(async () => {
      fx = await buildFixture(engine);
      app = await makeApp(fx.store);
      base = await listen(app);
    });
    after(async () => {
      await app?.close();
      await fx?.cleanup();
    });

    test('search walks every page: the same leads as one big page, in order', async () => {
      const body = {
        filters: { teamId: BERLIN.id },
        sort: { field: 'timestamp' as const, direction: 'ASC' as const },
      };
      const paged: string[] = [];
      for await (const lead of admin().leads.search({ ...body, limit: 2 })) paged.push(lead.leadId);
      const pages: number[] = [];
      for await (const page of admin().leads.searchPages({ ...body, limit: 2 }))
        pages.push(page.leads.length);
      const [whole] = await collect(admin().leads.searchPages({ ...body, limit: 1000 }));
      assert.ok(paged.length > 4, 'several pages');
      assert.deepEqual(
        paged,
        whole?.leads.map((l) => l.leadId),
      );
      assert.equal(pages.length, Math.ceil(paged.length / 2));
    });

    test('get returns the lead search found; an unknown id is a LeadlineError with problem and request id', async () => {
      const client = admin();
      const [first] = await collect(client.leads.searchPages({ filters: { teamId: BERLIN.id }, limit: 1 }));
      const lead = first?.leads[0] as Lead;
      assert.deepEqual(await client.leads.get(lead.leadId), lead);
      const err = await client.leads.get('01900000-0000-7000-8000-00000000dead').catch((e: unknown) => e);
      assert.ok(err instanceof LeadlineError);
      assert.equal(err.status, 404);
      assert.match(err.problem?.type ?? '', /not-found/);
      assert.ok(err.requestId !== null && err.requestId === err.problem?.instance, 'request id surfaced');
      assert.match(err.message, new RegExp(err.requestId));
    });

    test('create: a lost answer is retried with the same Idempotency-Key, and one lead is stored', async () => {
      const proxy = await lossyProxy(base, '/api/pub/v2/leads', 1);
      try {
        const client = createLeadline({
          baseUrl: proxy.url,
          apiKey: fx.key(BERLIN.member),
          retry: { baseDelayMs: 10 },
        });
        const name = `Idem ${engine} ${Date.now()}`;
        const made = await client.leads.create({ leadSource: 'MANUAL', systemFields: { fullName: name } });
        const posts = proxy.seen.filter((r) => r.method === 'POST' && r.url === '/api/pub/v2/leads');
        assert.equal(posts.length, 2, 'the first answer was lost, the retry answered');
        const keys = posts.map((p) => p.headers['idempotency-key']);
        assert.ok(typeof keys[0] === 'string' && keys[0].length > 0);
        assert.equal(keys[1], keys[0], 'the same Idempotency-Key on the retry');
        const found = await collect(
          client.leads.search({
            filters: { assignedMemberIds: [BERLIN.member] },
            query: [{ fields: ['fullName'], value: name, match: 'EXACT' }],
          }),
        );
        assert.deepEqual(
          found.map((l) => l.leadId),
          [made.leadId],
          'one lead, not two',
        );
      } finally {
        await proxy.close();
      }
    });

    test('changes: every lead once across pages, then only new ones from the persisted cursor', async () => {
      const client = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      const all = async (cursor: string | null) => {
        const seen: string[] = [];
        let last = cursor;
        for await (const page of client.leads.changes({ cursor, limit: 3 })) {
          seen.push(...page.leads.map((l) => l.leadId));
          last = page.cursor;
        }
        return { seen, cursor: last };
      };
      const first = await all(null);
      assert.equal(new Set(first.seen).size, first.seen.length, 'no lead twice');
      const mine = await collect(client.leads.search({ filters: { assignedMemberIds: [BERLIN.member] } }));
      assert.deepEqual([...first.seen].sort(), mine.map((l) => l.leadId).sort());
      const added = await client.leads.create({
        leadSource: 'MANUAL',
        systemFields: { fullName: 'Fresh Feed' },
      });
      await eventually(async () => {
        const next = await all(first.cursor);
        assert.deepEqual(next.seen, [added.leadId]);
      });
    });

    test('changes with follow: waits for new leads until aborted', async () => {
      const client = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      let cursor: string | null = null;
      for await (const page of client.leads.changes()) cursor = page.cursor;
      const stop = new AbortController();
      const got: string[] = [];
      const following = (async () => {
        for await (const page of client.leads.changes({
          cursor,
          follow: true,
          pollIntervalMs: 50,
          signal: stop.signal,
        })) {
          got.push(...page.leads.map((l) => l.leadId));
          stop.abort();
        }
      })();
      const added = await client.leads.create({
        leadSource: 'MANUAL',
        systemFields: { fullName: 'Followed' },
      });
      await assert.rejects(following, (e: unknown) => (e as Error).name === 'AbortError');
      assert.deepEqual(got, [added.leadId]);
    });

    test('changes with follow and wait: the server holds the call until a lead is stored', {
      timeout: 60_000,
    }, async () => {
      const client = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      let cursor: string | null = null;
      for await (const page of client.leads.changes()) cursor = page.cursor;
      const stop = new AbortController();
      const got: string[] = [];
      let wanted: string | null = null;
      const following = (async () => {
        // An hour between polls: only the server's long-poll can bring the lead within the test.
        for await (const page of client.leads.changes({
          cursor,
          follow: true,
          wait: 30,
          pollIntervalMs: 3_600_000,
          signal: stop.signal,
        })) {
          got.push(...page.leads.map((l) => l.leadId));
          if (wanted !== null && got.includes(wanted)) stop.abort();
        }
      })().then(
        () => null,
        (e: unknown) => e as Error,
      );
      // On PostgreSQL a lead of an earlier test may come first (the feed holds leads back while
      // older transactions are open): the follower ends up waiting on the server all the same.
      await eventually(async () => assert.equal(fx.store.feed.waiting(), 1));
      const added = await client.leads.create({
        leadSource: 'MANUAL',
        systemFields: { fullName: 'Waited for' },
      });
      wanted = added.leadId;
      if (got.includes(wanted)) stop.abort();
      assert.equal((await following)?.name, 'AbortError');
      assert.equal(got.at(-1), added.leadId);
    });

    test('update and merge: versions as etag, a stale ifMatch is a 412 LeadlineError, duplicates, the merged lead gone', async () => {
      const client = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      const one = await client.leads.create({
        leadSource: 'MANUAL',
        systemFields: { fullName: 'Client Patch', email: 'Client.Patch@dup.test' },
      });
      const two = await client.leads.create({
        leadSource: 'MANUAL',
        systemFields: { companyName: 'Dup Co', email: ' client.patch@dup.test' },
      });
      const read = await client.leads.getVersioned(one.leadId);
      assert.equal(read.etag, '"1"');
      const updated = await client.leads.update(
        one.leadId,
        { systemFields: { jobTitle: 'CTO' } },
        { ifMatch: read.etag },
      );
      assert.equal(updated.etag, '"2"');
      assert.equal(updated.lead.systemFields.jobTitle, 'CTO');
      const stale = await client.leads
        .update(one.leadId, { systemFields: { jobTitle: 'CEO' } }, { ifMatch: read.etag })
        .catch((e: unknown) => e);
      assert.ok(stale instanceof LeadlineError);
      assert.equal(stale.status, 412);
      assert.match(stale.problem?.type ?? '', /precondition-failed$/);
      const groups = await client.leads.duplicates();
      const ours = groups.find((g) => g.leads.some((l) => l.leadId === one.leadId));
      assert.deepEqual(ours?.matchedOn, [{ field: 'email', value: 'client.patch@dup.test' }]);
      assert.deepEqual(
        ours?.leads.map((l) => l.leadId),
        [one.leadId, two.leadId],
      );
      const merged = await client.leads.merge(one.leadId, [two.leadId], { ifMatch: updated.etag });
      assert.equal(merged.etag, '"3"');
      assert.equal(merged.lead.systemFields.companyName, 'Dup Co');
      const gone = await client.leads.get(two.leadId).catch((e: unknown) => e);
      assert.ok(gone instanceof LeadlineError);
      assert.equal(gone.status, 410);
    });

    test('privacy: erase answers the receipt, erasure reads it back; a member key is a 403 LeadlineError', async () => {
      const receipt = await admin().privacy.erase({ email: 'Nobody@Client.test' });
      assert.deepEqual([receipt.counts.leads, receipt.leadIds], [0, 0]);
      assert.match(receipt.emailHash ?? '', /^[0-9a-f]{64}$/);
      assert.deepEqual(await admin().privacy.erasure(receipt.erasureId), receipt);
      const member = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      await assert.rejects(member.privacy.erase({ email: 'nobody@client.test' }), (err: unknown) => {
        assert.ok(err instanceof LeadlineError);
        assert.equal(err.status, 403);
        return true;
      });
    });

    test('events.list pages the event log with its types; a cursor with other types is a 400 LeadlineError', async () => {
      const client = admin();
      const first = await eventually(async () => {
        const page = await client.events.list({ types: 'lead.created', limit: 2 });
        assert.equal(page.events.length, 2);
        return page;
      });
      assert.ok(first.events.every((e) => e.type === 'lead.created' && typeof e.id === 'string'));
      assert.ok(first.nextCursor !== null, 'a full page: more may follow');
      const next = await client.events.list({ types: 'lead.created', cursor: first.nextCursor, limit: 2 });
      assert.ok(!next.events.some((e) => first.events.some((f) => f.id === e.id)), 'goes on after');
      const err = await client.events.list({ cursor: first.nextCursor }).catch((e: unknown) => e);
      assert.ok(err instanceof LeadlineError);
      assert.equal(err.status, 400);
    });
  });
}

describe('@leadline/client retries on the server’s 429', () => {
  let fx: Fixture;
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    fx = await buildFixture('sqlite');
    app = await makeApp(fx.store, { LEADLINE_RATE_LIMIT: '2', LEADLINE_RATE_WINDOW_SECONDS: '1' });
    base = await listen(app);
  });
  after(async () => {
    await app?.close();
    await fx?.cleanup();
  });

  test('waits the Retry-After and succeeds; without retries the 429 is a LeadlineError', async () => {
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const client = createLeadline({
      baseUrl: base,
      apiKey: fx.key(BERLIN.member),
      fetch: counting,
      retry: { retries: 5 },
    });
    for (let i = 0; i < 4; i++) await client.me();
    assert.ok(statuses.includes(429), `the quota was hit: ${statuses.join(' ')}`);
    assert.equal(statuses.filter((s) => s === 200).length, 4, 'every call answered in the end');
    const strict = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member), retry: { retries: 0 } });
    const errors = await Promise.all([1, 2, 3].map(() => strict.me().catch((e: unknown) => e)));
    const refused = errors.find((e) => e instanceof LeadlineError);
    assert.ok(refused instanceof LeadlineError, 'a third call in the window is refused');
    assert.equal(refused.status, 429);
    assert.match(refused.problem?.type ?? '', /rate-limited/);
  });

  test('a Retry-After longer than maxDelayMs is capped; the retries end with the last answer', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(503, {
        'content-type': 'application/problem+json',
        'retry-after': '3600',
        'x-request-id': `r${hits}`,
      });
      res.end(
        JSON.stringify({
          type: 'x/store-unavailable',
          title: 'Store unavailable',
          status: 503,
          detail: 'down',
          instance: `r${hits}`,
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = createLeadline({ baseUrl: url, apiKey: 'k', retry: { retries: 2, maxDelayMs: 20 } });
      const err = await client.me().catch((e: unknown) => e);
      assert.ok(err instanceof LeadlineError);
      assert.equal(err.status, 503);
      assert.equal(hits, 3, 'the first attempt and two retries');
      assert.equal(err.requestId, 'r3');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('7', now), 7000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(null, now), null);
  });
});
