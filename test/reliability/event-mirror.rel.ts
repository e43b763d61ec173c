import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { storeArgs } from '../cli/cli.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { keyFor, load } from '../support/helpers.js';
import { type ServerProcess, startServerProcess, stopAll } from '../support/server-process.js';
import { Receiver } from '../webhooks/receiver.js';
import { type Answer, Client, type Json, prng, sleep } from './http-client.js';
import { saveLogs } from './report.js';

/**
 * Issue 41's third bar: a follower of `GET /api/pub/v2/events` and a webhook receiver, after a
 * random mix of creates, updates, merges and erasures by concurrent writers with a SIGKILL in the
 * middle, hold the same events for each lead, none missed — on every engine.
 *
 * `leadline serve` (dist/) runs as a child process with one endpoint, registered through the API
 * for lead.created, lead.updated, lead.merged and lead.erased, pointing at a loopback Receiver
 * (test/webhooks/receiver.ts: every signature verified; each answer 30 ms late, so deliveries
 * overlap and some are in flight at the kill). 4 writers send EVENT_MIRROR_OPS (600)
 * operations drawn by a seeded PRNG (EVENT_MIRROR_SEED): v2 creations (with Idempotency-Key),
 * (25 %), PATCH updates (61 %, each with a value no other update sets, so every 200 is a change),
 * merges of 2–3 leads (10 %) and erasures of 1–2 leads by id (4 %; leads merged into them go too). Half way through the server is SIGKILLed and a new one started
 * on the same store; requests that fail on the connection are sent again to it. A follower pages
 * /events from the start throughout. At the end the test waits until the receiver holds every
 * lead event the log holds (a delivery in flight at the kill comes again after its 60 s lease)
 * and the follower has caught up, then compares, per lead:
 *
 * - **The log**: no event twice; each lead's events start with `lead.created`, and `lead.merged` or
 *   `lead.erased` ends them; every writer's confirmed operation is there (each created lead has
 *   its `lead.created` or `lead.erased`, each merged lead its `lead.merged` or `lead.erased`, each
 *   erased lead its `lead.erased`, each lead at least as many `lead.updated` as PATCHes answered 200).
 * - **The follower** holds the log's events in the log's order, each once.
 * - **The receiver**, de-duplicated by `webhook-id` (delivery is at least once), holds exactly the
 *   log's events: none missed, none the log does not have, each with the log's type.
 * - **Erased leads**: the erasure deletes a lead's earlier events from the log (docs/privacy.md,
 *   "What erasure removes") and its pending deliveries. The follower and the receiver may each have
 *   got some of them before; those are allowed only for a lead the log holds as erased, and the
 *   `lead.erased` itself must be in both.
 *
 * **Order** — the bar says "in the same order"; it holds for the follower (asserted), and not for
 * webhooks in general, so the receiver's order is measured and printed, not asserted. Delivery runs
 * up to LEADLINE_WEBHOOK_CONCURRENCY attempts at once, retries a failed one later and re-sends one
 * in flight at a crash after its lease, so deliveries arrive in any order (as the Standard Webhooks
 * specification allows). Nor can a receiver sort them back: an event's id (UUIDv7) and `timestamp`
 * are taken when the write starts, not when it commits, so two writes to one lead that overlap can
 * commit in the other order (and two in one millisecond tie on time, with random id bits). The
 * log's position is the order; a receiver that needs it reads /events (docs/webhooks.md
 * "Ordering"). The line printed counts the leads whose arrival order, and whose (timestamp, id)
 * order, differ from the log's.
 */
const OPS = Number(process.env.EVENT_MIRROR_OPS ?? 600);
const SEED = Number(process.env.EVENT_MIRROR_SEED ?? 41);
const WRITERS = 4;
const TEAM = 4103;
const ADMIN = 41031;
const MEMBER = 41032;
/** Deliveries in flight at the kill come again after their 60 s lease; PostgreSQL's log may lag. */
const DRAIN_MS = 150_000;
const TYPES = ['lead.created', 'lead.updated', 'lead.merged', 'lead.erased'] as const;
const SOURCES = ['MANUAL', 'PROFILE_CONNECTION', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN', 'APP_TO_APP'] as const;

interface Event {
  id: string;
  type: string;
  leadId: string;
  timestamp: string;
}

/** Each lead's events, in the order given. */
function byLead(events: Iterable<Event>): Map<string, Event[]> {
  const map = new Map<string, Event[]>();
  for (const e of events) {
    const list = map.get(e.leadId) ?? [];
    list.push(e);
    map.set(e.leadId, list);
  }
  return map;
}

const ids = (events: Event[]) => events.map((e) => e.id).join(',');

for (const engine of enginesUnderTest()) {
  describe(`the event mirror bar [${engine}]`, () => {
    let made: EngineStore | undefined;
    let receiver: Receiver | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'leadline-event-mirror-'));
    after(async () => {
      await stopAll();
      await receiver?.close();
      await made?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    test(`${OPS} creates, updates, merges and erasures by ${WRITERS} writers, the server SIGKILLed: /events and the webhooks hold the same events per lead`, {
      timeout: 900_000,
    }, async () => {
      const started = Date.now();
      made = await makeEngineStore(engine);
      await load(made.store, [
        { type: 'team', id: TEAM, name: 'Event mirror' },
        {
          type: 'member',
          id: ADMIN,
          teamId: TEAM,
          email: 'admin@event-mirror.test',
          role: 'admin',
          pid: '1',
        },
        {
          type: 'member',
          id: MEMBER,
          teamId: TEAM,
          email: 'member@event-mirror.test',
          role: 'member',
          pid: '2',
        },
      ]);
      const adminKey = await keyFor(made.store, ADMIN);
      const memberKey = await keyFor(made.store, MEMBER);
      // From here on the test is a client only: HTTP to the server process, HTTP from its deliveries.
      await made.store.close();
      const location = made.location;
      const serverEnv = {
        LEADLINE_RATE_LIMIT: '1000000000',
        LEADLINE_AUTH_FAILURE_LIMIT: '1000000',
        LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
        LEADLINE_WEBHOOK_POLL_MS: '20',
      };
      const servers: ServerProcess[] = [await startServerProcess(storeArgs(location), serverEnv)];
      const client = new Client();
      client.url = servers[0]!.url;

      receiver = await Receiver.start([]);
      const hook = await client.send('POST', '/api/pub/v2/webhooks', adminKey, {
        url: receiver.url,
        eventTypes: TYPES,
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      receiver.secrets = [hook.body.data.secret];
      // A receiver that takes a while to answer, so deliveries overlap and some are in flight at
      // the kill (sent again after their lease: the copies the receiver de-duplicates).
      receiver.delayMs = Number(process.env.EVENT_MIRROR_RECEIVER_MS ?? 30);

      // ---- the follower of /events ------------------------------------------------------------
      const followed: Event[] = [];
      const teamLevel: string[] = [];
      let cursor: string | null = null;
      /** Reads the log until a page comes back short (caught up). */
      const follow = async (): Promise<void> => {
        for (;;) {
          const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
          const res = await client.send('GET', `/api/pub/v2/events?limit=1000${q}`, adminKey);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          for (const e of res.body.data.events as Json[]) {
            if (typeof e.data?.leadId !== 'string') teamLevel.push(`${e.type} ${e.id}`);
            else followed.push({ id: e.id, type: e.type, leadId: e.data.leadId, timestamp: e.timestamp });
          }
          cursor = res.body.data.pollCursor;
          if (res.body.data.nextCursor === null) return;
        }
      };
      let following = true;
      const follower = (async () => {
        while (following) {
          await follow();
          await sleep(50);
        }
      })();

      // ---- the writers ------------------------------------------------------------------------
      /** Leads the writers believe live (neither merged nor erased); may be stale. */
      const pool = new Set<string>();
      const created = new Set<string>();
      const mergedAway = new Set<string>();
      const erased = new Set<string>();
      const updates = new Map<string, number>();
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
      const runId = Date.now().toString(36);
      const refreshPool = async () => {
        const live = new Set<string>();
        let next: string | null = null;
        do {
          const body: Json = {
            filters: { teamId: TEAM },
            limit: 1000,
            ...(next === null ? {} : { cursor: next }),
          };
          const res = await client.send('POST', '/api/pub/v2/leads/search', adminKey, body);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          for (const l of res.body.data.leads as Json[]) live.add(l.leadId);
          next = res.body.data.nextCursor;
        } while (next !== null);
        pool.clear();
        for (const id of live) pool.add(id);
      };

      const writer = async (w: number, ops: number) => {
        const rand = prng(SEED * 1000 + w);
        const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
        const pickLead = (): string => pick([...pool]);
        for (let i = 0; i < ops; i++) {
          if (i % 100 === 0) await refreshPool();
          const op = rand();
          if (op < 0.25 || pool.size < 8) {
            const res = await client.send(
              'POST',
              '/api/pub/v2/leads',
              rand() < 0.5 ? adminKey : memberKey,
              {
                leadSource: pick(SOURCES),
                captureDatetime: new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 1e10)).toISOString(),
                locationShared: rand() < 0.5,
                systemFields: {
                  fullName: `W${w} Person ${i}`,
                  email: `w${w}-${i}@event-mirror.test`,
                  phone: rand() < 0.5 ? null : `+49 30 ${i}`,
                },
              },
              { 'idempotency-key': `${runId}-${w}-${i}` },
            );
            expect('create', res, [201]);
            if (res.status === 201) {
              pool.add(res.body.data.leadId);
              created.add(res.body.data.leadId);
            }
          } else if (op < 0.86) {
            const lead = pickLead();
            // A value no other update sets: every 200 is a change, so a lead.updated.
            const patch =
              rand() < 0.5
                ? { systemFields: { note: `w${w}-${i}`, phone: rand() < 0.3 ? null : `+49 89 ${i}` } }
                : { systemFields: { jobTitle: `J${w}x${i}`, companyName: rand() < 0.5 ? null : `C${i}` } };
            const res = await client.send('PATCH', `/api/pub/v2/leads/${lead}`, adminKey, patch, {
              'content-type': 'application/merge-patch+json',
            });
            // 410: merged by another writer; 404: erased by another writer.
            expect('update', res, [200], [404, 410]);
            if (res.status === 200) updates.set(lead, (updates.get(lead) ?? 0) + 1);
            else pool.delete(lead);
          } else if (op < 0.96) {
            const chosen = new Set<string>();
            const want = rand() < 0.5 ? 2 : 3;
            for (let t = 0; t < 10 && chosen.size < want; t++) chosen.add(pickLead());
            const [survivor, ...merged] = [...chosen];
            if (merged.length > 0) {
              const res = await client.send('POST', `/api/pub/v2/leads/${survivor}/merge`, adminKey, {
                mergeLeadIds: merged,
              });
              expect('merge', res, [200], [404, 410]);
              if (res.status === 200)
                for (const m of merged) {
                  pool.delete(m);
                  mergedAway.add(m);
                }
            }
          } else {
            const chosen = new Set<string>();
            const want = rand() < 0.7 ? 1 : 2;
            for (let t = 0; t < 10 && chosen.size < want; t++) chosen.add(pickLead());
            const leadIds = [...chosen];
            for (const id of leadIds) pool.delete(id);
            const res = await client.send('POST', '/api/pub/v2/erasures', adminKey, { leadIds });
            // 400: one of them erased already (by another writer, or by this request before the kill).
            expect('erase', res, [201], [400]);
            if (res.status === 400 && !JSON.stringify(res.body).includes('already erased'))
              unexpected.push(`erase: 400 ${JSON.stringify(res.body).slice(0, 300)}`);
            if (res.status === 201) for (const id of leadIds) erased.add(id);
          }
          done++;
        }
      };

      // ---- the kill ---------------------------------------------------------------------------
      let writing = true;
      let kill: { afterOps: number; downMs: number; receivedBefore: number } | undefined;
      const killer = (async () => {
        while (writing && done < OPS / 2) await sleep(20);
        if (!writing) return;
        const server = servers[0]!;
        const killedAt = Date.now();
        const afterOps = done;
        const receivedBefore = receiver!.received.length;
        server.child.kill('SIGKILL'); // its own PID: the child we started
        await server.stop(); // already ended: returns at once
        saveLogs(`event-mirror-${engine}-killed`, server.logs);
        const next = await startServerProcess(storeArgs(location), serverEnv);
        servers.push(next);
        client.url = next.url;
        kill = { afterOps, downMs: Date.now() - killedAt, receivedBefore };
      })();

      const per = Math.ceil(OPS / WRITERS);
      const written = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, w) => writer(w, Math.min(per, OPS - w * per))),
      );
      writing = false;
      await killer;
      following = false;
      await follower;
      for (const r of written) if (r.status === 'rejected') throw r.reason;
      const wroteAt = Date.now();

      // ---- drained: the log read whole, the follower caught up, every delivery in -------------
      const readLog = async (): Promise<Event[]> => {
        const all: Event[] = [];
        let next: string | null = null;
        do {
          const q: string = next === null ? '' : `&cursor=${encodeURIComponent(next)}`;
          const res = await client.send('GET', `/api/pub/v2/events?limit=1000${q}`, adminKey);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          for (const e of res.body.data.events as Json[])
            if (typeof e.data?.leadId === 'string')
              all.push({ id: e.id, type: e.type, leadId: e.data.leadId, timestamp: e.timestamp });
          next = res.body.data.nextCursor;
        } while (next !== null);
        return all;
      };
      /** The receiver's events, each webhook-id once, in the order of first arrival. */
      const receivedEvents = (): { events: Event[]; copies: number; mismatched: string[] } => {
        const seen = new Map<string, Event>();
        const mismatched: string[] = [];
        for (const r of receiver!.received) {
          const e = {
            id: r.id,
            type: r.payload.type,
            leadId: r.payload.data?.leadId,
            timestamp: r.payload.timestamp,
          };
          const first = seen.get(r.id);
          if (first === undefined) seen.set(r.id, e);
          else if (first.type !== e.type || first.leadId !== e.leadId) mismatched.push(r.id);
        }
        return { events: [...seen.values()], copies: receiver!.received.length - seen.size, mismatched };
      };
      let log: Event[] = [];
      let polls = 0;
      const deadline = Date.now() + DRAIN_MS;
      for (;;) {
        await follow();
        log = await readLog();
        polls++;
        const got = new Set(receivedEvents().events.map((e) => e.id));
        const followedIds = new Set(followed.map((e) => e.id));
        if (log.every((e) => got.has(e.id) && followedIds.has(e.id))) break;
        if (Date.now() > deadline) break;
        await sleep(500);
      }
      const drainMs = Date.now() - wroteAt;
      const last = servers[servers.length - 1]!;
      await last.stop();
      saveLogs(`event-mirror-${engine}-last`, last.logs);
      const { events: received, copies, mismatched } = receivedEvents();

      // ---- compare ------------------------------------------------------------------------------
      const logIds = new Set(log.map((e) => e.id));
      const logLeads = byLead(log);
      const erasedInLog = new Set(log.filter((e) => e.type === 'lead.erased').map((e) => e.leadId));
      const problems: string[] = [];
      const problem = (text: string) => {
        if (problems.length < 20) problems.push(text);
      };
      // The log itself.
      if (logIds.size !== log.length) problem(`the log holds ${log.length - logIds.size} event(s) twice`);
      for (const [lead, events] of logLeads) {
        const types = events.map((e) => e.type);
        const ending = types.findIndex((t) => t === 'lead.merged' || t === 'lead.erased');
        if (erasedInLog.has(lead)) {
          if (types.length !== 1) problem(`erased lead ${lead}: the log holds ${types.join(',')}`);
        } else if (types[0] !== 'lead.created') problem(`lead ${lead}: the log starts ${types.join(',')}`);
        else if (ending !== -1 && ending !== types.length - 1)
          problem(`lead ${lead}: events after ${types[ending]}: ${types.join(',')}`);
      }
      const has = (lead: string, type: string) => (logLeads.get(lead) ?? []).some((e) => e.type === type);
      for (const lead of created)
        if (!has(lead, 'lead.created') && !erasedInLog.has(lead))
          problem(`created ${lead}: no lead.created in the log`);
      for (const lead of mergedAway)
        if (!has(lead, 'lead.merged') && !erasedInLog.has(lead))
          problem(`merged ${lead}: no lead.merged in the log`);
      for (const lead of erased)
        if (!erasedInLog.has(lead)) problem(`erased ${lead}: no lead.erased in the log`);
      for (const [lead, n] of updates) {
        if (erasedInLog.has(lead)) continue;
        const logged = (logLeads.get(lead) ?? []).filter((e) => e.type === 'lead.updated').length;
        if (logged < n) problem(`lead ${lead}: ${n} updates answered 200, ${logged} lead.updated in the log`);
      }
      // The follower: the log's events in the log's order, each once; the rest erased history.
      const followedIds = new Set(followed.map((e) => e.id));
      if (followedIds.size !== followed.length)
        problem(`the follower read ${followed.length - followedIds.size} event(s) twice`);
      const followedLeads = byLead(followed.filter((e) => logIds.has(e.id)));
      for (const [lead, events] of logLeads)
        if (ids(followedLeads.get(lead) ?? []) !== ids(events))
          problem(`lead ${lead}: the follower holds other events or another order than the log`);
      const followedGone = followed.filter((e) => !logIds.has(e.id));
      for (const e of followedGone)
        if (!erasedInLog.has(e.leadId))
          problem(
            `the follower read ${e.type} ${e.id} of ${e.leadId}, which the log no longer holds, and the lead is not erased`,
          );
      // The receiver: exactly the log's events, by webhook-id; the rest erased history.
      for (const e of log)
        if (!received.some((r) => r.id === e.id))
          problem(`missed by the receiver: ${e.type} ${e.id} of ${e.leadId}`);
      const receivedById = new Map(received.map((r) => [r.id, r]));
      for (const e of log) {
        const r = receivedById.get(e.id);
        if (r !== undefined && (r.type !== e.type || r.leadId !== e.leadId))
          problem(`${e.id}: the log says ${e.type} of ${e.leadId}, the receiver ${r.type} of ${r.leadId}`);
      }
      const receivedGone = received.filter((e) => !logIds.has(e.id));
      for (const e of receivedGone)
        if (!erasedInLog.has(e.leadId))
          problem(
            `the receiver got ${e.type} ${e.id} of ${e.leadId}, which the log does not hold, and the lead is not erased`,
          );
      if (mismatched.length > 0)
        problem(
          `webhook-ids delivered twice with another type or lead: ${mismatched.slice(0, 3).join(', ')}`,
        );

      // Order, measured: the receiver's arrival order, and (timestamp, id) order, against the log's.
      const receivedLeads = byLead(received.filter((e) => logIds.has(e.id)));
      let arrivalDiffers = 0;
      let timeDiffers = 0;
      for (const [lead, events] of logLeads) {
        if (ids(receivedLeads.get(lead) ?? []) !== ids(events)) arrivalDiffers++;
        const sorted = [...events].sort((a, b) =>
          a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : 1,
        );
        if (ids(sorted) !== ids(events)) timeDiffers++;
      }
      const byType = Object.fromEntries(TYPES.map((t) => [t, log.filter((e) => e.type === t).length]));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stderr.write(
        `event mirror bar [${engine}]: ${done} operations (seed ${SEED}), server killed after ${kill?.afterOps} ops ` +
          `(down ${kill?.downMs} ms, ${kill?.receivedBefore} deliveries received before), ${client.resent} requests resent; ` +
          `log ${log.length} events ${JSON.stringify(byType)} of ${logLeads.size} leads; follower ${followed.length} read ` +
          `(${followedGone.length} of erased leads since gone); receiver ${receiver.received.length} deliveries, ` +
          `${received.length} distinct (${copies} copies, ${receivedGone.length} of erased leads since gone); ` +
          `drained ${(drainMs / 1000).toFixed(1)} s after the writers (${polls} polls); leads whose arrival order differs ` +
          `from the log's: ${arrivalDiffers}, whose (timestamp, id) order does: ${timeDiffers}; ${problems.length} problem(s); ${seconds} s\n`,
      );
      if (process.env.EVENT_MIRROR_DEBUG) process.stderr.write(`${JSON.stringify(tally)}\n`);
      assert.deepEqual(unexpected.slice(0, 20), [], `${unexpected.length} unexpected answers`);
      assert.ok(kill !== undefined, 'the server was killed');
      assert.deepEqual(receiver.forged, [], 'every delivery verified');
      assert.deepEqual(teamLevel, [], 'no team-level event in this run');
      assert.ok(
        log.length > 0 && erasedInLog.size > 0 && byType['lead.merged']! > 0 && byType['lead.updated']! > 0,
        'every kind of event happened',
      );
      assert.deepEqual(problems, []);
    });
  });
}
