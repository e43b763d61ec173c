/**
 * What `PRAGMA secure_delete = ON` (docs/privacy.md "Physically gone") costs the SQLite write
 * paths: v2 creations and updates through the store, ON and OFF side by side in alternating
 * rounds on fresh stores of the same shape. `npx tsx bench/secure-delete.ts [leads] [rounds]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { valuesOf } from '../src/leads/lead-change.js';
import type { NewLead } from '../src/leads/leads.port.js';
import { searchable } from '../src/leads/text.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';

const LEADS = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 3);

function newLead(i: number): NewLead {
  const fields = {
    name: `Person ${i} Example`,
    email: `person${i}@bench.test`,
    company: `Company ${i % 97}`,
    note: 'x'.repeat(200),
  };
  return {
    teamId: 1,
    memberId: 1,
    id: null,
    epoch: 1_700_000_000_000 + i,
    time: 'label',
    userPid: 'p1',
    kind: 'connection',
    locationShared: false,
    lat: null,
    long: null,
    fields: JSON.stringify(fields),
    source: 'MANUAL',
    firstName: null,
    lastName: null,
    ...searchable(fields, { firstName: null, lastName: null }),
  };
}

async function round(secure: boolean): Promise<{ create: number; update: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-secure-delete-'));
  const store = SqliteStore.open(join(dir, 'b.db'));
  try {
    await store.migrate();
    (Reflect.get(store, 'db') as Database.Database).pragma(`secure_delete = ${secure ? 'ON' : 'OFF'}`);
    const db = Reflect.get(store, 'db') as Database.Database;
    db.exec(
      "INSERT INTO teams (id, name) VALUES (1, 'B'); INSERT INTO members (id, team_id, email, role, pid) VALUES (1, 1, 'm@b.test', 'admin', 'p1')",
    );
    const t0 = process.hrtime.bigint();
    const uuids: string[] = [];
    for (let i = 0; i < LEADS; i++) {
      const r = await store.leads.create(newLead(i), null);
      if (r.kind === 'created') uuids.push(r.lead.uuid);
    }
    const t1 = process.hrtime.bigint();
    for (const uuid of uuids) {
      const lead = (await store.leads.byUuid({ teamId: 1 }, uuid))!;
      const before = valuesOf(lead);
      const fields = JSON.stringify({ ...JSON.parse(lead.fields), note: 'y'.repeat(150) });
      const values = { ...before, fields };
      await store.leads.update({
        teamId: 1,
        uuid,
        version: lead.version,
        values,
        before,
        ...searchable(JSON.parse(fields), { firstName: null, lastName: null }),
        source: 'api',
        at: Date.now(),
      });
    }
    const t2 = process.hrtime.bigint();
    return { create: Number(t1 - t0) / 1e3 / LEADS, update: Number(t2 - t1) / 1e3 / LEADS };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, { create: number[]; update: number[] }> = {
  OFF: { create: [], update: [] },
  ON: { create: [], update: [] },
};
for (let r = 0; r < ROUNDS; r++) {
  for (const secure of r % 2 === 0 ? [false, true] : [true, false]) {
    const got = await round(secure);
    const key = secure ? 'ON' : 'OFF';
    results[key]!.create.push(got.create);
    results[key]!.update.push(got.update);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${LEADS} leads, ${ROUNDS} rounds each, median µs per operation:`);
for (const key of ['OFF', 'ON']) {
  const r = results[key]!;
  console.log(
    `secure_delete ${key.padEnd(3)} create ${median(r.create).toFixed(1)} µs  update ${median(r.update).toFixed(1)} µs`,
  );
}
