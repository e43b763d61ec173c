import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createKey } from '../../src/keys/create-key.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load } from '../support/helpers.js';
import { RedisServer, redisServerSkip } from '../support/redis-server.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/**
 * Issue 21 §4, R14: a Redis outage is not an API outage. A redis-server of the test's own is
 * stopped under load and started again on the same port, then black-holed (SIGSTOP) and let go:
 * never a 500, never a hung request, the per-key limit held per instance meanwhile, /readyz
 * ready and reporting Redis, counters back in Redis after (at the next background sync), each change of state logged once
 * through the JSON log and nothing on stderr.
 */
const LIMIT = 400;
const WORKERS = 8;
/** Per worker, so a key never reaches LIMIT under load whether counted in Redis or in memory. */
const MAX_PER_WORKER = 150;
/** Requests each worker sends once redis-server has exited. */
const AFTER_STOP = 20;
const PATH = '/api/pub/leads/getLastLead';
const skip = redisServerSkip();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const engine of enginesUnderTest()) {
  describe(`Redis outage under load (${engine})`, { skip }, () => {
    const prefix = `leadline-test-${randomBytes(6).toString('hex')}`;
    const stderr: string[] = [];
    let redis: RedisServer;
    let made: EngineStore;
    let server: ServerProcess;

    before(async () => {
      redis = await RedisServer.start();
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: 1, name: 'T' },
        { type: 'member', id: 1, teamId: 1, email: 'a@t.test', role: 'admin', pid: '1' },
        { type: 'lead', userId: 1, id: 'x', epoch: 1000, isLead: true },
      ]);
      const args =
        engine === 'sqlite' ? ['--db', made.location.dbPath] : ['--database-url', made.location.databaseUrl!];
      server = await startServerProcess(args, {
        REDIS_URL: redis.url,
        LEADLINE_REDIS_PREFIX: prefix,
        LEADLINE_RATE_LIMIT: String(LIMIT),
        LEADLINE_RATE_WINDOW_SECONDS: '3600',
      });
      server.child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    });

    after(async () => {
      await server?.stop();
      await redis?.stop('SIGKILL');
      await made?.cleanup();
    });

    const newKey = async () => createKey(made.store, { member: 1, legacyV1: true });
    // A request that hangs fails the test here instead of hanging it.
    const get = (path: string, key?: string) =>
      fetch(`${server.url}${path}`, {
        headers: key === undefined ? {} : auth(key),
        signal: AbortSignal.timeout(5000),
      }).then(async (r) => ({ status: r.status, body: await r.text() }));
    const readiness = async () => {
      const r = await get('/readyz');
      return { status: r.status, body: JSON.parse(r.body) as Record<string, unknown> };
    };
    const waitForRedis = async (state: 'up' | 'down') => {
      const deadline = Date.now() + 10_000;
      let last = await readiness();
      while (last.body.redis !== state && Date.now() < deadline) {
        await sleep(50);
        last = await readiness();
      }
      return last;
    };
    /** What Redis holds for a key's counters (every window, so an hour boundary cannot split it). */
    const countedInRedis = async (keyId: number) => {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      client.on('error', () => {});
      try {
        await client.connect();
        const names = await client.keys(`${prefix}:rl:key:${keyId}:*`);
        const values = names.length === 0 ? [] : await client.mget(...names);
        return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
      } finally {
        client.disconnect();
      }
    };
    /** Counts reach Redis at the next background sync (every 250 ms by default): waits up to 5 s. */
    const countedInRedisSoon = async (keyId: number, expected: number) => {
      const deadline = Date.now() + 5000;
      let counted = await countedInRedis(keyId);
      while (counted !== expected && Date.now() < deadline) {
        await sleep(50);
        counted = await countedInRedis(keyId);
      }
      return counted;
    };
    let slowestMs = 0;
    const statusesOf = async (key: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        out.push((await get(PATH, key)).status);
        slowestMs = Math.max(slowestMs, performance.now() - started);
      }
      return out;
    };

    test('with Redis up the counters are in Redis and /readyz reports it', async () => {
      const { id, key } = await newKey();
      assert.deepEqual(await statusesOf(key, 3), [200, 200, 200]);
      assert.equal(await countedInRedisSoon(id, 3), 3);
      assert.deepEqual(await readiness(), { status: 200, body: { status: 'ready', redis: 'up' } });
    });

    test('stopped under load: no 500, every request served, the limit held per instance', async (t) => {
      const keys = await Promise.all(Array.from({ length: WORKERS }, newKey));
      const statuses: number[] = [];
      const sentAfterStop = keys.map(() => 0);
      let stopped = false;
      const worker = async (key: string, w: number) => {
        for (let i = 0; i < MAX_PER_WORKER && sentAfterStop[w]! < AFTER_STOP; i++) {
          const counts = stopped;
          statuses.push((await get(PATH, key)).status);
          if (counts) sentAfterStop[w]!++;
        }
      };
      const running = Promise.all(keys.map((k, w) => worker(k.key, w)));
      while (statuses.length < 100) await sleep(5);
      await redis.stop();
      stopped = true;
      await running;
      assert.deepEqual(
        sentAfterStop,
        keys.map(() => AFTER_STOP),
        'the load went on past the stop',
      );
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
        `${statuses.length} requests`,
      );
      t.diagnostic(`${statuses.length} requests, ${WORKERS * AFTER_STOP} of them after redis-server exited`);

      assert.deepEqual(await readiness(), { status: 200, body: { status: 'ready', redis: 'down' } });
      // Counted in this instance's memory meanwhile: a fresh key gets LIMIT, then 429.
      const { key } = await newKey();
      const limited: number[] = [];
      for (let i = 0; i < LIMIT + 1; i += 50) {
        const batch = Array.from({ length: Math.min(50, LIMIT + 1 - i) }, () => get(PATH, key));
        for (const r of await Promise.all(batch)) limited.push(r.status);
      }
      assert.equal(limited.filter((s) => s === 200).length, LIMIT);
      assert.equal(limited.filter((s) => s === 429).length, 1);
    });

    test('started again on the same port: counters in Redis again, /readyz up', async (t) => {
      await redis.start();
      const back = performance.now();
      assert.deepEqual(await waitForRedis('up'), { status: 200, body: { status: 'ready', redis: 'up' } });
      t.diagnostic(`/readyz up ${Math.round(performance.now() - back)} ms after redis-server was ready`);
      const { id, key } = await newKey();
      assert.deepEqual(await statusesOf(key, 3), [200, 200, 200]);
      assert.equal(await countedInRedisSoon(id, 3), 3);
    });

    test('black-holed (SIGSTOP) under load: answered, not hung; back when it answers again', async (t) => {
      const keys = await Promise.all(Array.from({ length: WORKERS }, newKey));
      redis.pause();
      slowestMs = 0;
      const answers = await Promise.all(keys.map((k) => statusesOf(k.key, 10)));
      t.diagnostic(`${answers.flat().length} requests while paused, slowest ${Math.round(slowestMs)} ms`);
      assert.deepEqual(
        answers.flat().filter((s) => s !== 200),
        [],
      );
      assert.deepEqual(await waitForRedis('down'), { status: 200, body: { status: 'ready', redis: 'down' } });
      redis.resume();
      const resumed = performance.now();
      assert.deepEqual(await waitForRedis('up'), { status: 200, body: { status: 'ready', redis: 'up' } });
      t.diagnostic(`/readyz up ${Math.round(performance.now() - resumed)} ms after SIGCONT`);
      const { id, key } = await newKey();
      assert.deepEqual(await statusesOf(key, 2), [200, 200]);
      assert.equal(await countedInRedisSoon(id, 2), 2);
    });

    test('each change of state logged once, in the JSON log; nothing on stderr', () => {
      const entries = server.logs.map((line) => JSON.parse(line) as { redis?: string; msg?: string });
      const changes = entries.filter((e) => e.redis !== undefined);
      assert.deepEqual(
        changes.map((e) => e.redis),
        ['up', 'down', 'up', 'down', 'up'],
        JSON.stringify(changes),
      );
      // "Again" only after an outage, not on the first connection (issue 37).
      assert.deepEqual(
        changes.filter((e) => e.redis === 'up').map((e) => e.msg?.endsWith(' again')),
        [false, true, true],
      );
      assert.equal(stderr.join(''), '');
    });
  });
}
