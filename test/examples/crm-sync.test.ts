import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { createLeadline, type Lead } from '../../packages/client/src/index.js';
import { enginesUnderTest } from '../support/engines.js';
import { eventually, makeApp } from '../support/helpers.js';
import { B, BERLIN, buildFixture, type Fixture, importMore, lead } from '../v1/fixtures.js';

/**
 * examples/crm-sync.ts (issue 14 §4): run against a server while leads are created through v2
 * and imported, updated and merged (issue 39), following the feed by long-poll (`wait=`, issue
 * 41 §6), killed with SIGKILL in the middle, restarted from its saved cursor — and its
 * mirror then holds exactly the leads the key may see, each as the server gives it, once.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function start(env: Record<string, string>): ChildProcess & { stdoutText: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/crm-sync.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null) console.error(`crm-sync exited ${code}: ${stderr}`);
    if (signal !== null && signal !== 'SIGKILL' && signal !== 'SIGTERM')
      console.error(`crm-sync ${signal}: ${stderr}`);
  });
  return Object.assign(child, { stdoutText: () => stdout });
}

const mirrored = (path: string): Map<string, unknown> => {
  if (!existsSync(path)) return new Map();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT lead_id, lead FROM leads').all() as { lead_id: string; lead: string }[];
    return new Map(rows.map((r) => [r.lead_id, JSON.parse(r.lead)]));
  } catch {
    return new Map(); // not created yet
  } finally {
    db.close();
  }
};

for (const engine of enginesUnderTest()) {
  describe(`examples/crm-sync.ts (${engine})`, () => {
    let fx: Fixture;
    let app: FastifyInstance;
    let base: string;
    let dir: string;
    before(async () => {
      fx = await buildFixture(engine);
      app = await makeApp(fx.store);
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      dir = mkdtempSync(join(tmpdir(), 'leadline-crm-sync-'));
    });
    after(async () => {
      await app?.close();
      await fx?.cleanup();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    test('a missing or refused key: one clear line, exit 1, no mirror file made (issue 37)', async () => {
      for (const [key, said] of [
        ['', /^crm-sync: LEADLINE_KEY is required/],
        ['llk_000000000000000000000000000000000000', /^crm-sync: LEADLINE_KEY was refused: /],
      ] as const) {
        const mirror = join(dir, `refused-${key.length}.db`);
        const child = start({ LEADLINE_URL: base, LEADLINE_KEY: key, MIRROR: mirror });
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
        assert.equal(code, 1);
        assert.match(stderr, said);
        assert.equal(stderr.trim().split('\n').length, 1, `one line, no stack trace: ${stderr}`);
        assert.equal(existsSync(mirror), false, 'no mirror file');
      }
    });

    test('a page of one lead says "1 lead mirrored" (issue 37)', async () => {
      const mirror = join(dir, 'one-lead.db');
      const apiKey = fx.key(BERLIN.member);
      const member = createLeadline({ baseUrl: base, apiKey });
      let visible = 0;
      for await (const page of member.leads.changes({ limit: 1000 })) visible += page.leads.length;
      const child = start({ LEADLINE_URL: base, LEADLINE_KEY: apiKey, MIRROR: mirror, WAIT_SECONDS: '20' });
      try {
        // Caught up with what the key sees; then one new lead is one page of one lead.
        await eventually(async () => assert.equal(mirrored(mirror).size, visible));
        await member.leads.create({ leadSource: 'MANUAL', systemFields: { fullName: 'One More' } });
        await eventually(async () => assert.match(child.stdoutText(), /^crm-sync: 1 lead mirrored$/m));
        assert.doesNotMatch(child.stdoutText(), /\b1 leads\b/);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    });

    test('killed mid-sync and restarted, the mirror is exact', async () => {
      const mirror = join(dir, 'mirror.db');
      const env = {
        LEADLINE_URL: base,
        LEADLINE_KEY: fx.key(BERLIN.teamAdmin),
        MIRROR: mirror,
        WAIT_SECONDS: '20',
      };
      const member = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.member) });
      let made = 0;
      let imported = 0;
      let changed = 0;
      const created: string[] = [];
      // Creates, imports, updates and merges (issue 39): the mirror applies every kind of change.
      const write = async (): Promise<void> => {
        const kind = made % 6;
        if (kind === 3) {
          imported++;
          await importMore(fx, [
            lead(BERLIN.member, `sync-${engine}-${imported}`, B + imported, { isLead: true }),
          ]);
        } else if (kind === 4 && created.length > 0) {
          changed++;
          const id = created[made % created.length]!;
          await member.leads.update(id, { systemFields: { jobTitle: `Title ${made}`, note: null } });
        } else if (kind === 5 && created.length > 2) {
          changed++;
          const [into, gone] = created.splice(0, 2) as [string, string];
          await member.leads.merge(into, [gone]);
          created.push(into);
        } else {
          const l = await member.leads.create({
            leadSource: 'MANUAL',
            systemFields: { fullName: `Sync ${made}`, note: `n${made}` },
          });
          created.push(l.leadId);
        }
        made++;
      };

      let child = start(env);
      // Writes go on while the example follows the feed; it is killed once it has mirrored some.
      await eventually(async () => {
        await write();
        assert.ok(mirrored(mirror).size > 10, 'mirroring has begun');
      });
      for (let i = 0; i < 20; i++) await write();
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      for (let i = 0; i < 20; i++) await write(); // stored while it is down
      child = start(env);
      for (let i = 0; i < 20; i++) await write();
      const restarted = child;
      await eventually(async () => assert.match(restarted.stdoutText(), /resuming from the saved cursor/));

      const admin = createLeadline({ baseUrl: base, apiKey: fx.key(BERLIN.teamAdmin) });
      const all: Lead[] = [];
      for await (const l of admin.leads.search({ filters: { teamId: BERLIN.id }, limit: 1000 })) all.push(l);
      try {
        await eventually(async () => {
          const rows = mirrored(mirror);
          assert.equal(rows.size, all.length, 'every lead of the team, once');
          for (const l of all)
            assert.deepEqual(rows.get(l.leadId), l, `lead ${l.leadId} as the server has it`);
        });
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      assert.ok(
        made >= 60 && imported >= 10 && changed >= 15,
        `created, imported, updated and merged leads while it ran (${made}, ${imported}, ${changed})`,
      );
    });
  });
}
