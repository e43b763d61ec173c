import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { keyFor, load } from '../support/helpers.js';
import { BIN, type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { type Answer, Client, canonical, prng, sleep } from './http-client.js';
import { saveLogs } from './report.js';

/**
 * Issue 39's first bar as a client sees it (docs/v1-migration.md "How to keep a mirror exact"):
 * a mirror built ONLY from the HTTP change feed equals the store after a random mix of
 * MIRROR_OPS (10,000) creates, updates (PATCH, some with If-Match), merges (2–3 leads) and
 * re-imports (`leadline import` of existing leads' records with changed values, and of new
 * ones) by 4 concurrent writers, with the server process SIGKILLed in the middle and a new one
 * started on the same store: 0 missed, 0 stale, 0 extra — on every engine.
 *
 * Everything goes through the real processes: `leadline serve` (dist/) for the writers, the
 * follower and the truth (team search), `leadline import` for the re-imports, run beside the
 * server on the same store. A request that dies with the server is sent again to the new one
 * (an operation in flight at the kill may or may not have committed: the truth is the store).
 * The mirror's rules are the migration guide's: entries in feed order, a lead replaces what the
 * mirror holds under its leadId, `{leadId, mergedInto}` deletes it.
 */
const OPS = Number(process.env.MIRROR_OPS ?? 10_000);
const SEED = Number(process.env.MIRROR_SEED ?? 39);
/** How many times the server is SIGKILLed, evenly spread over the run. */
const KILLS = Number(process.env.MIRROR_KILLS ?? 1);
const WRITERS = 4;
const TEAM = 4702;
const ADMIN = 47021;
const MEMBER = 47022;
/** On PostgreSQL the feed holds back behind other open transactions (docs/v2.md "Lead changes"). */
const CATCH_UP_MS = 60_000;
const SOURCES = ['MANUAL', 'PROFILE_CONNECTION', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN', 'APP_TO_APP'] as const;

// biome-ignore lint/suspicious/noExplicitAny: wire bodies of many shapes, checked by the comparison
type Json = any;
interface V2Lead {
  leadId: string;
  legacyLeadId: string;
  assignedMembers: number[];
  leadSource: (typeof SOURCES)[number];
  captureDatetime: string;
}

/** Every unmerged lead of the team, through v2 search with its cursor: the store's truth. */
async function truthOf(client: Client, key: string): Promise<Map<string, string>> {
  const truth = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const body: Json = { filters: { teamId: TEAM }, limit: 1000, ...(cursor === null ? {} : { cursor }) };
    const res = await client.send('POST', '/api/pub/v2/leads/search', key, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const l of res.body.data.leads as V2Lead[]) {
      assert.ok(!truth.has(l.leadId), `search gave ${l.leadId} twice`);
      truth.set(l.leadId, canonical(l));
    }
    cursor = res.body.data.nextCursor;
  } while (cursor !== null);
  return truth;
}

/** The v1 record `leadline import` loads as the same lead (its identity: userId, id, epoch). */
function recordOf(lead: V2Lead): Record<string, unknown> {
  const flags: Record<string, boolean> =
    lead.leadSource === 'BUSINESS_CARD_SCAN'
      ? { isScan: true }
      : lead.leadSource === 'MANUAL'
        ? { isLead: true, isManual: true }
        : lead.leadSource === 'APP_TO_APP'
          ? { isLead: true, apptoapp: true }
          : { isLead: true };
  return {
    type: 'lead',
    userId: lead.assignedMembers[0],
    id: lead.legacyLeadId,
    epoch: Date.parse(lead.captureDatetime),
    ...flags,
  };
}

for (const engine of enginesUnderTest()) {
  describe(`the mirror bar over HTTP [${engine}]`, () => {
    let made: EngineStore | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'leadline-mirror-http-'));
    after(async () => {
      await stopAll();
      await made?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    test(`${OPS} operations by ${WRITERS} HTTP writers, the server SIGKILLed ${KILLS}×: the feed's mirror equals the store`, {
      timeout: 1_200_000,
    }, async () => {
      const started = Date.now();
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Mirror over HTTP' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'admin@mirror-http.test', role: 'admin', pid: '1' },
        {
          type: 'member',
          id: MEMBER,
          teamId: TEAM,
          email: 'member@mirror-http.test',
          role: 'member',
          pid: '2',
        },
      ]);
      const adminKey = await keyFor(made.store, ADMIN);
      const memberKey = await keyFor(made.store, MEMBER);
      // From here on the test reads and writes the store only as a client: over HTTP and the CLI.
      await made.store.close();
      const location = made.location;
      const serverEnv = { LEADLINE_RATE_LIMIT: '1000000000', LEADLINE_AUTH_FAILURE_LIMIT: '1000000' };
      const servers: ServerProcess[] = [await startServerProcess(storeArgs(location), serverEnv)];
      const client = new Client();
      client.url = servers[0]!.url;

      // ---- the follower: the mirror, from the feed alone -------------------------------------
      const mirror = new Map<string, string>();
      let cursor: string | null = null;
      let entries = 0;
      let mergedEntries = 0;
      /** Reads the feed until a page comes back short (caught up); returns the entries read. */
      const follow = async (): Promise<number> => {
        let seen = 0;
        for (;;) {
          const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
          const res = await client.send('GET', `/api/pub/v2/leads/changes?limit=1000${q}`, adminKey);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          for (const entry of res.body.data.leads as Json[]) {
            if ('mergedInto' in entry) {
              mirror.delete(entry.leadId);
              mergedEntries++;
            } else mirror.set(entry.leadId, canonical(entry));
          }
          seen += res.body.data.leads.length;
          // Kept only after the page is applied (the guide's rule).
          cursor = res.body.data.pollCursor;
          if (res.body.data.nextCursor === null) return seen;
        }
      };
      let following = true;
      const follower = (async () => {
        while (following) {
          entries += await follow();
          await sleep(50);
        }
      })();

      // ---- the writers ------------------------------------------------------------------------
      /** Leads the writers know of (from their answers and an occasional search); may be stale. */
      const pool = new Map<string, V2Lead>();
      const tally: Record<string, number> = {};
      const count = (what: string) => {
        tally[what] = (tally[what] ?? 0) + 1;
      };
      const unexpected: string[] = [];
      const expect = (what: string, res: Answer, ok: number[], refusals: number[] = []) => {
        if (ok.includes(res.status)) count(`${what} ${res.status}`);
        else if (refusals.includes(res.status)) count(`${what} refused ${res.status}`);
        else unexpected.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      };
      let done = 0;
      let imports = 0;
      const runId = `${Date.now().toString(36)}`;
      const refreshPool = async () => {
        const truth = await truthOf(client, adminKey);
        pool.clear();
        for (const text of truth.values()) {
          const l = JSON.parse(text) as V2Lead;
          pool.set(l.leadId, l);
        }
      };
      const importFile = async (name: string, records: object[]) => {
        const file = join(dir, name);
        writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
        const child = spawn(process.execPath, [BIN, ...storeArgs(location), 'import', file], {
          env: { ...process.env, DATABASE_URL: '' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (t: string) => {
          stderr += t;
        });
        const [code] = (await once(child, 'exit')) as [number | null];
        imports++;
        if (code === 0) count('import 0');
        else unexpected.push(`import exit ${code}: ${stderr.slice(0, 500)}`);
      };

      const writer = async (w: number, ops: number) => {
        const rand = prng(SEED * 1000 + w);
        const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
        const pickLead = (): V2Lead => pick([...pool.values()]);
        for (let i = 0; i < ops; i++) {
          if (i % 250 === 0) await refreshPool();
          const op = rand();
          if (op < 0.2 || pool.size < 8) {
            const key = rand() < 0.5 ? adminKey : memberKey;
            const shared = rand() < 0.5;
            const body = {
              leadSource: pick(SOURCES),
              captureDatetime: new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 1e10)).toISOString(),
              locationShared: shared,
              systemFields: {
                fullName: `W${w} Person ${i}`,
                email: `p${Math.floor(rand() * 50)}@mirror-http.test`,
                phone: rand() < 0.5 ? null : `+49 30 ${i}`,
                location: rand() < 0.5 ? null : { label: `Hall ${i % 7}`, latitude: 52.5, longitude: 13.4 },
              },
            };
            // Idempotency-Key: a creation resent after the kill is not stored twice.
            const res = await client.send('POST', '/api/pub/v2/leads', key, body, {
              'idempotency-key': `${runId}-${w}-${i}`,
            });
            expect('create', res, [201]);
            if (res.status === 201) pool.set(res.body.data.leadId, res.body.data);
          } else if (op < 0.22) {
            // A re-import through the CLI beside the server: 1–4 records, most of them leads the
            // store has (changed values), some new ones. 2 % of the operations: each one is a
            // process start (~0.7 s of CPU), the rest are requests of a few milliseconds.
            const records: Record<string, unknown>[] = [];
            const n = 1 + Math.floor(rand() * 4);
            for (let k = 0; k < n; k++) {
              const again = rand() < 0.75;
              const base = again
                ? recordOf(pickLead())
                : {
                    type: 'lead',
                    userId: rand() < 0.5 ? ADMIN : MEMBER,
                    id: `imp-${w}-${i}-${k}`,
                    epoch: Date.UTC(2025, 0, 1) + Math.floor(rand() * 1e10),
                    isLead: true,
                  };
              const located = rand() < 0.5;
              records.push({
                ...base,
                name: `R${w} Imported ${i}.${k}`,
                email: `p${Math.floor(rand() * 50)}@mirror-http.test`,
                note: `import ${w}-${i}-${k}`,
                company: rand() < 0.5 ? `Co ${i % 13}` : undefined,
                locationShared: located,
                ...(located ? { lat: '48.1', long: '11.5', location: `Munich ${i % 5}` } : {}),
              });
            }
            await importFile(`w${w}-${i}.ndjson`, records);
          } else if (op < 0.94) {
            const lead = pickLead();
            const kind = rand();
            const patch =
              kind < 0.35
                ? { systemFields: { note: `w${w}-${i}`, phone: rand() < 0.3 ? null : `+49 89 ${i}` } }
                : kind < 0.6
                  ? {
                      locationShared: rand() < 0.5,
                      systemFields: { location: { label: `L${i}`, latitude: 1.5, longitude: 2.5 } },
                    }
                  : kind < 0.8
                    ? { systemFields: { firstName: `F${w}x${i}`, jobTitle: rand() < 0.5 ? null : `J${i}` } }
                    : {
                        systemFields: {
                          email: `p${Math.floor(rand() * 50)}@mirror-http.test`,
                          companyName: `C${i}`,
                        },
                      };
            const path = `/api/pub/v2/leads/${lead.leadId}`;
            const headers: Record<string, string> = { 'content-type': 'application/merge-patch+json' };
            if (rand() < 0.3) {
              // A conditional change: the version as just read; another writer may win meanwhile.
              const read = await client.send('GET', path, adminKey);
              expect('get', read, [200], [410]);
              if (read.status === 410) {
                pool.delete(lead.leadId);
                done++;
                continue;
              }
              headers['if-match'] = read.etag ?? '';
              const res = await client.send('PATCH', path, adminKey, patch, headers);
              expect('update if-match', res, [200], [410, 412]);
              if (res.status === 200) pool.set(lead.leadId, res.body.data);
              if (res.status === 410) pool.delete(lead.leadId);
            } else {
              const res = await client.send('PATCH', path, adminKey, patch, headers);
              expect('update', res, [200], [410]);
              if (res.status === 200) pool.set(lead.leadId, res.body.data);
              if (res.status === 410) pool.delete(lead.leadId);
            }
          } else {
            const ids = new Set<string>();
            const want = rand() < 0.5 ? 2 : 3;
            for (let t = 0; t < 10 && ids.size < want; t++) ids.add(pickLead().leadId);
            const [survivor, ...merged] = [...ids];
            if (merged.length > 0) {
              const res = await client.send('POST', `/api/pub/v2/leads/${survivor}/merge`, adminKey, {
                mergeLeadIds: merged,
              });
              // 410: one of them was merged by another writer (or by this request before the kill).
              expect('merge', res, [200], [410]);
              if (res.status === 200) {
                pool.set(survivor!, res.body.data);
                for (const m of merged) pool.delete(m);
              }
            }
          }
          done++;
        }
      };

      // ---- the kills --------------------------------------------------------------------------
      const kills: { afterOps: number; downMs: number }[] = [];
      let writing = true;
      const killer = (async () => {
        for (let k = 1; k <= KILLS; k++) {
          const at = Math.floor((OPS * k) / (KILLS + 1));
          while (writing && done < at) await sleep(20);
          if (!writing) break;
          const server = servers[servers.length - 1]!;
          const killedAt = Date.now();
          const afterOps = done;
          server.child.kill('SIGKILL'); // its own PID: the child we started
          await server.stop(); // already ended: returns at once
          saveLogs(`mirror-http-${engine}-${k}`, server.logs);
          const next = await startServerProcess(storeArgs(location), serverEnv);
          servers.push(next);
          client.url = next.url;
          kills.push({ afterOps, downMs: Date.now() - killedAt });
        }
      })();

      const per = Math.ceil(OPS / WRITERS);
      // Settled, not Promise.all: a writer that fails must not leave the others sending requests
      // after the test has stopped the server.
      const written = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, w) => writer(w, Math.min(per, OPS - w * per))),
      );
      writing = false;
      await killer;
      following = false;
      await follower;
      for (const r of written) if (r.status === 'rejected') throw r.reason;

      // ---- caught up: compare while polling ---------------------------------------------------
      // Every write has returned (and the killed server's transactions have ended with it): the
      // truth is fixed now. On PostgreSQL the feed may still hold back behind another suite's open
      // transaction, so the follower goes on reading until its mirror equals the truth, or 60 s.
      const truth = await truthOf(client, adminKey);
      const deadline = Date.now() + CATCH_UP_MS;
      let diff: { missed: string[]; stale: string[]; extra: string[] };
      let polls = 0;
      for (;;) {
        entries += await follow();
        polls++;
        diff = {
          missed: [...truth.keys()].filter((k) => !mirror.has(k)),
          stale: [...truth.keys()].filter((k) => mirror.has(k) && mirror.get(k) !== truth.get(k)),
          extra: [...mirror.keys()].filter((k) => !truth.has(k)),
        };
        if (diff.missed.length + diff.stale.length + diff.extra.length === 0) break;
        if (Date.now() > deadline) break;
        await sleep(250);
      }
      const last = servers[servers.length - 1]!;
      await last.stop();
      saveLogs(`mirror-http-${engine}-last`, last.logs);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(
        `mirror bar over HTTP [${engine}]: ${done} operations (seed ${SEED}; ${imports} imports), ` +
          `${kills.length} server kill(s) (${kills.map((k) => `after ${k.afterOps} ops, down ${k.downMs} ms`).join('; ')}), ` +
          `${client.resent} requests resent, ${truth.size} leads, ${entries} feed entries read (${mergedEntries} merged), ` +
          `caught up after ${polls} poll(s); missed ${diff.missed.length}, stale ${diff.stale.length}, ` +
          `extra ${diff.extra.length}; ${seconds} s\n`,
      );
      if (process.env.MIRROR_DEBUG) process.stderr.write(`${JSON.stringify(tally)}\n`);
      assert.deepEqual(unexpected.slice(0, 20), [], `${unexpected.length} unexpected answers`);
      assert.equal(kills.length, KILLS, 'the server was killed');
      assert.ok(truth.size > 0);
      const show = (ids: string[]) =>
        ids.slice(0, 3).map((id) => ({ id, mirror: mirror.get(id), truth: truth.get(id) }));
      assert.deepEqual(
        { missed: diff.missed.length, stale: diff.stale.length, extra: diff.extra.length },
        { missed: 0, stale: 0, extra: 0 },
        JSON.stringify({ missed: show(diff.missed), stale: show(diff.stale), extra: show(diff.extra) }),
      );
    });
  });
}
