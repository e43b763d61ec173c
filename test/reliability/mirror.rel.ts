import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { StoredLead } from '../../src/leads/lead.js';
import { leadToV2 } from '../../src/leads/v2-wire.js';
import type { Store } from '../../src/store.js';
import { type EngineStore, enginesUnderTest, makeEngineStore } from '../support/engines.js';
import { load } from '../support/helpers.js';

/**
 * Issue 39, the mirror bar: a mirror built only from the change feed equals the store after a
 * random mix of creates, updates, merges and re-imports (MIRROR_OPS, 10,000 by default) by 4
 * concurrent writer processes, one of them SIGKILLed in the middle (a replacement does its
 * remaining operations): 0 missed, 0 stale, and no merged lead left in it — on every engine.
 * The follower applies each entry in feed order: a lead with `mergedInto` (or erased) is deleted, any other
 * replaces what it had.
 */
const OPS = Number(process.env.MIRROR_OPS ?? 10_000);
const WRITERS = 4;
const TEAM = 4701;
const ADMIN = 47011;
const WRITER = fileURLToPath(new URL('./mirror-writer.ts', import.meta.url));

function startWriter(
  location: EngineStore['location'],
  w: number,
  ops: number,
): { child: ChildProcess; done: () => number } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, JSON.stringify(location), String(w), String(ops)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let done = 0;
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    for (const m of text.matchAll(/done (\d+)/g)) done = Number(m[1]);
  });
  return { child, done: () => done };
}

async function ended(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

for (const engine of enginesUnderTest()) {
  describe(`the mirror bar [${engine}]`, () => {
    let made: EngineStore;
    const children: ChildProcess[] = [];
    after(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await made?.cleanup();
    });

    test(`${OPS} operations by ${WRITERS} writers, one killed: the feed's mirror equals the store`, {
      timeout: 600_000,
    }, async () => {
      made = await makeEngineStore(engine);
      const store: Store = made.store;
      await load(store, [
        { type: 'team', id: TEAM, name: 'Mirror' },
        { type: 'member', id: ADMIN, teamId: TEAM, email: 'a@mirror.test', role: 'admin', pid: '1' },
      ]);
      const mirror = new Map<string, string>();
      let cursor: string | null = null;
      let entries = 0;
      const follow = async (): Promise<number> => {
        let seen = 0;
        for (;;) {
          const page = await store.leads.changes({ teamId: TEAM }, cursor, 500);
          for (const l of page.leads as StoredLead[]) {
            if (l.mergedInto === null && !l.erased) mirror.set(l.uuid, JSON.stringify(leadToV2(l)));
            else mirror.delete(l.uuid);
          }
          seen += page.leads.length;
          cursor = page.next;
          if (page.leads.length < 500) return seen;
        }
      };
      const per = Math.ceil(OPS / WRITERS);
      const writers = Array.from({ length: WRITERS }, (_, w) => startWriter(made.location, w, per));
      children.push(...writers.map((w) => w.child));
      let following = true;
      const follower = (async () => {
        while (following) {
          entries += await follow();
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      // SIGKILL writer 0 half way through its share, then let a replacement do the rest.
      while (writers[0]!.done() < per / 2 && writers[0]!.child.exitCode === null)
        await new Promise((r) => setTimeout(r, 20));
      writers[0]!.child.kill('SIGKILL');
      await ended(writers[0]!.child);
      const killedAt = writers[0]!.done();
      const replacement = startWriter(made.location, WRITERS, per - killedAt);
      children.push(replacement.child);
      for (const w of [...writers.slice(1), replacement])
        assert.equal(await ended(w.child), 0, 'a writer failed');
      following = false;
      await follower;
      // Caught up: every transaction has ended, so the PostgreSQL feed holds nothing back.
      for (let quiet = 0; quiet < 3; ) quiet = (await follow()) === 0 ? quiet + 1 : 0;

      const truth = new Map<string, string>();
      for await (const batch of store.leads.scan({ teamId: TEAM }, 1000))
        for (const l of batch) truth.set(l.uuid, JSON.stringify(leadToV2(l)));
      const missed = [...truth.keys()].filter((k) => !mirror.has(k));
      const stale = [...truth.keys()].filter((k) => mirror.has(k) && mirror.get(k) !== truth.get(k));
      const extra = [...mirror.keys()].filter((k) => !truth.has(k));
      process.stderr.write(
        `mirror bar [${engine}]: ${OPS} operations (writer 0 killed after ${killedAt}), ${truth.size} leads, ` +
          `${entries} feed entries read; missed ${missed.length}, stale ${stale.length}, extra ${extra.length}\n`,
      );
      assert.ok(truth.size > 0);
      assert.deepEqual(
        { missed: missed.length, stale: stale.length, extra: extra.length },
        { missed: 0, stale: 0, extra: 0 },
      );
    });
  });
}
