import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReportKey, V1Report } from '../../src/retirement/report.js';
import { utcDay } from '../../src/retirement/usage.js';
import { type CliResult, jsonOf, leadline, storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { auth, load, ONE_LEAD } from '../support/helpers.js';
import { BIN, type ServerProcess, startServerProcess } from '../support/server-process.js';

/**
 * v2-and-lifecycle "Configuration surface": brownouts and legacy grants are data — a change made
 * with the `leadline` command reaches every running instance within one second, without a
 * restart — and the usage ledger is kept in the store, shared by the instances and durable across
 * a graceful shutdown. Real server processes, stopped by their pid: on SQLite two processes on
 * one file, on PostgreSQL the real multi-instance case.
 */
const V1 = '/api/pub/leads/';
const V2_CHANGES = '/api/pub/v2/leads/changes?limit=1';
const SERVER_ENV = {
  DATABASE_URL: '',
  LEADLINE_PUBLIC_URL: 'https://leadline.test',
  LEADLINE_RATE_LIMIT: '1000000',
  LEADLINE_USAGE_FLUSH_MS: '200',
};

/**
 * How long a `leadline` command may take to land its change. Not what these tests measure (that
 * is the time from the change being in the store to each server answering it), so generous: on
 * a loaded 2-core machine a command's start alone took 5 s, and one run took over 10 s.
 */
const COMMAND_BOUND_MS = 60_000;

/** The `leadline` command without blocking this process (the servers are polled meanwhile). */
function leadlineAsync(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

function json(r: CliResult): Record<string, unknown> {
  return jsonOf(r) as Record<string, unknown>;
}

async function call(
  server: ServerProcess,
  path: string,
  key: string,
  agent = 'test-crm/1.0',
): Promise<{ status: number; type: string | null; cacheControl: string | null }> {
  const url = `${server.url}${path}`;
  const init = { headers: { ...auth(key), 'user-agent': agent } };
  // A kept-alive socket can be closed by the server (keepAliveTimeout 5 s) just as fetch reuses
  // it after an idle gap — a CLI run here takes seconds on a loaded machine — and fetch then
  // fails before the request reached the server. Only that socket error is retried, once: a
  // request the server did count and answer is never sent twice, so the exact totals hold.
  const res = await fetch(url, init).catch((err: unknown) => {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw err;
    return fetch(url, init);
  });
  const body = await res.text();
  const type = res.status >= 400 ? (JSON.parse(body) as { type: string }).type : null;
  return { status: res.status, type, cacheControl: res.headers.get('cache-control') };
}

for (const engine of enginesUnderTest()) {
  describe(`v1 retirement across server processes (${engine})`, () => {
    let made: EngineStore;
    let cli: string[];
    let servers: ServerProcess[] = [];
    const newKey = (...flags: string[]) => {
      const doc = json(leadline([...cli, 'keys', 'create', '--member', '1', ...flags, '--json']));
      return { id: doc.id as number, key: doc.key as string };
    };
    const start = (env: Record<string, string> = {}) => startServerProcess(cli, { ...SERVER_ENV, ...env });

    before(async () => {
      made = await makeEngineStore(engine);
      cli = storeArgs(made.location);
      await load(made.store, ONE_LEAD);
      servers = await Promise.all([start(), start()]);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGKILL')));
      await made?.cleanup();
    });

    /**
     * Runs a `leadline` command while both servers answer `key`'s getLastLead without pause (so
     * each has just refreshed what it caches when the change lands), and measures, from the moment
     * the change is visible in the store, how long each server takes to answer `want`.
     */
    async function propagation(
      args: string[],
      visible: () => Promise<boolean>,
      key: string,
      want: number,
    ): Promise<{ ms: number; status: number; type: string | null; cacheControl: string | null }[]> {
      const done = leadlineAsync([...cli, ...args]);
      const started = performance.now();
      let t0: number | null = null;
      const seen = (async () => {
        while (!(await visible())) {
          assert.ok(
            performance.now() - started < COMMAND_BOUND_MS,
            `${args.join(' ')}: not in the store after ${COMMAND_BOUND_MS / 1000} s`,
          );
          await sleep(2);
        }
        t0 = performance.now();
      })();
      const answers = await Promise.all(
        servers.map(async (s) => {
          for (;;) {
            const answer = await call(s, `${V1}getLastLead`, key);
            const at = performance.now();
            const late = t0 === null ? at - started > COMMAND_BOUND_MS : at - t0 > 3000;
            if (answer.status === want || late) return { at, ...answer };
            await sleep(5);
          }
        }),
      );
      await seen;
      assert.equal((await done).status, 0);
      return answers.map(({ at, ...answer }) => ({ ms: at - (t0 as number), ...answer }));
    }

    test('a brownout added with the command is answered 410 by both servers within 1 s; removing it restores 200', async (t) => {
      const k = newKey('--legacy-v1');
      for (const s of servers) assert.equal((await call(s, `${V1}getLastLead`, k.key)).status, 200);
      const now = Date.now();
      const add = ['v1', 'brownout', 'add', '--from', new Date(now - 60_000).toISOString()];
      add.push('--to', new Date(now + 3_600_000).toISOString(), '--json');
      const on = await propagation(
        add,
        async () => (await made.store.retirement.brownouts()).length === 1,
        k.key,
        410,
      );
      for (const a of on) {
        assert.deepEqual(
          [a.status, a.type, a.cacheControl],
          [410, 'https://leadline.test/problems/v1-brownout', 'no-store'],
        );
        assert.ok(a.ms <= 1000, `410 after ${Math.round(a.ms)} ms`);
      }
      t.diagnostic(`410 after ${on.map((a) => Math.round(a.ms)).join(' and ')} ms`);
      const [b] = await made.store.retirement.brownouts();
      const off = await propagation(
        ['v1', 'brownout', 'remove', String(b!.id)],
        async () => (await made.store.retirement.brownouts()).length === 0,
        k.key,
        200,
      );
      for (const a of off) {
        assert.equal(a.status, 200);
        assert.ok(a.ms <= 1000, `200 again after ${Math.round(a.ms)} ms`);
      }
      t.diagnostic(`200 again after ${off.map((a) => Math.round(a.ms)).join(' and ')} ms`);
    });

    test('a legacy grant or its revocation with the command flips 403 and 200: SQLite on the next request, PostgreSQL once notified', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const k = newKey(); // made now: after the default freeze (2026-01-01), a new integration
      const closed = 'https://leadline.test/problems/v1-closed-to-new-integrations';
      const lastLead = (s: ServerProcess) => call(s, `${V1}getLastLead`, k.key);
      // SQLite: each request checks whether the file changed, so the very next one sees it.
      // PostgreSQL: each server hears of the change on its own LISTEN connection, a moment after
      // the command's commit (a loaded machine can delay it past the command's exit), and within
      // 1 s whatever happens (R7): asked until then.
      const answer = async (s: ServerProcess, want: number) => {
        const deadline = Date.now() + (engine === 'sqlite' ? 0 : 1000);
        let got = await lastLead(s);
        while (got.status !== want && Date.now() < deadline) got = await lastLead(s);
        return got;
      };
      assert.deepEqual(await lastLead(a), { status: 403, type: closed, cacheControl: 'no-store' });
      json(leadline([...cli, 'keys', 'grant-legacy-v1', String(k.id), '--json']));
      assert.equal((await answer(b, 200)).status, 200, 'the other server');
      assert.equal((await answer(a, 200)).status, 200);
      json(leadline([...cli, 'keys', 'revoke-legacy-v1', String(k.id), '--json']));
      assert.equal((await answer(b, 403)).type, closed, 'the other server');
      assert.equal((await answer(a, 403)).status, 403);
    });

    test('the usage ledger is shared and durable: two servers, SIGTERM, a restart, exact totals', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const one = newKey('--legacy-v1');
      const two = newKey('--legacy-v1');
      const calls = async (list: [ServerProcess, string, { key: string }, number][]) => {
        for (const [s, path, k, n] of list)
          for (let i = 0; i < n; i++)
            assert.equal((await call(s, path, k.key, `agent-${k.key.slice(4, 8)}`)).status, 200);
      };
      const report = async (): Promise<Map<number, ReportKey>> => {
        const doc = json(leadline([...cli, 'v1', 'report', '--json'])) as unknown as V1Report;
        return new Map(doc.keys.map((k) => [k.keyId, k]));
      };
      const counted = async (keyId: number) =>
        (await made.store.retirement.usage(null))
          .filter((r) => r.keyId === keyId)
          .reduce((n, r) => n + r.count, 0);

      // While both run: each flushes every 200 ms into the same rows.
      await calls([
        [a, `${V1}getLastLead`, one, 3],
        [b, `${V1}getLastLead`, one, 2],
        [b, `${V1}getLeadsTimeRange?start=0`, one, 2],
        [a, `${V1}getLastLeadTeam`, two, 1],
      ]);
      const limit = Date.now() + 2000;
      while ((await counted(one.id)) + (await counted(two.id)) < 8 && Date.now() < limit) await sleep(20);
      assert.equal(await counted(one.id), 7, 'flushed while running');
      // Then more calls, and a graceful stop of both right away: the rest goes out at shutdown.
      await calls([
        [a, `${V1}getLastLead`, one, 1],
        [b, `${V1}getLeadsTimeRangeForTeam?start=0`, one, 4],
        [b, `${V1}getLastLeadTeam`, two, 2],
        [a, V2_CHANGES, two, 3],
        [b, V2_CHANGES, two, 1],
      ]);
      assert.deepEqual(await Promise.all(servers.map((s) => s.stop('SIGTERM'))), [0, 0]);

      let r = await report();
      assert.deepEqual(r.get(one.id), {
        keyId: one.id,
        memberId: 1,
        status: 'on-v1',
        v1Calls: 12,
        v1Served: 12,
        v1Refused: 0,
        v1ByOperation: {
          getLastLead: 6,
          getLastLeadTeam: 0,
          getLastLeadSubTeam: 0,
          getLeadsTimeRange: 2,
          getLeadsTimeRangeForTeam: 4,
        },
        v1LastSeen: r.get(one.id)?.v1LastSeen,
        userAgent: `agent-${one.key.slice(4, 8)}`,
        v2Calls: 0,
      });
      assert.ok(Date.now() - Date.parse(r.get(one.id)?.v1LastSeen ?? '') < 60_000);
      assert.deepEqual(r.get(two.id), {
        keyId: two.id,
        memberId: 1,
        status: 'on-v1',
        v1Calls: 3,
        v1Served: 3,
        v1Refused: 0,
        v1ByOperation: {
          getLastLead: 0,
          getLastLeadTeam: 3,
          getLastLeadSubTeam: 0,
          getLeadsTimeRange: 0,
          getLeadsTimeRangeForTeam: 0,
        },
        v1LastSeen: r.get(two.id)?.v1LastSeen,
        userAgent: `agent-${two.key.slice(4, 8)}`,
        v2Calls: 4,
      });

      // A restarted server adds to the same rows. Its flush interval is an hour: only the
      // shutdown flush can write what it counted.
      const rows = await made.store.retirement.usage(null);
      const day = utcDay(Date.now());
      const restarted = await start({ LEADLINE_USAGE_FLUSH_MS: '3600000' });
      servers = [restarted];
      await calls([
        [restarted, `${V1}getLastLead`, one, 2],
        [restarted, V2_CHANGES, two, 1],
      ]);
      await sleep(300);
      assert.equal(await counted(one.id), 12, 'not written before the shutdown');
      assert.equal(await restarted.stop('SIGTERM'), 0);
      r = await report();
      assert.equal(r.get(one.id)?.v1Calls, 14);
      assert.equal(r.get(one.id)?.v1ByOperation.getLastLead, 8);
      assert.equal(r.get(two.id)?.v2Calls, 5);
      const later = await made.store.retirement.usage(null);
      if (utcDay(Date.now()) === day) assert.equal(later.length, rows.length, 'the same rows, not new ones');
      const row = later.find((x) => x.keyId === one.id && x.operation === 'getLastLead' && x.day === day);
      assert.equal(row?.count, 8);
    });
  });
}
