/**
 * The store bench/erasure-load.ts erases from: `leadline seed`'s leads in team 1 (the bench's
 * usual team of 1,000 members, harness/seed-file.ts), and appended to the same seed file
 *
 * - team 2, e-mail-free: one admin and SETS × IDS leads with a name and a company, no e-mail —
 *   each set is one erasure of IDS leads by lead id;
 * - in team 1, SETS × PERSONS persons: each has three leads under its e-mail (members 2–4, the
 *   address as given, upper-cased, and with its domain capitalised: the erasure compares them
 *   normalised) and a fourth lead under another address, merged into the first over HTTP
 *   (`mergeInto`) once the server runs: an erasure takes the merged lead with its survivor.
 *
 * The added leads are older than every seeded one, so member 1's getLastLead answers the same
 * lead before, during and after the erasures.
 */
import { appendFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { Engine } from './harness/config.js';
import { writeSeed } from './harness/seed-file.js';

export const FREE_TEAM_ADMIN = 5001;
const OLD = 1_600_000_000_000;

export const personEmail = (set: number, p: number) => `person.${set}.${p}@erasure-bench.test`;
const freeId = (set: number, i: number) => `free-${set}-${i}`;
const personLeadId = (set: number, p: number, k: number) => `person-${set}-${p}-${k}`;

/** Writes the seed file: `leads` leads in all, of which the added ones above. */
export async function writeErasureSeed(
  file: string,
  leads: number,
  sets: number,
  ids: number,
  persons: number,
): Promise<void> {
  const added = sets * ids + sets * persons * 4;
  if (added >= leads) throw new Error(`${leads} leads cannot hold ${added} added ones`);
  await writeSeed(file, leads - added);
  const lines: string[] = [
    JSON.stringify({ type: 'team', id: 2, name: 'E-mail-free team', timeZone: 'UTC' }),
    JSON.stringify({
      type: 'member',
      id: FREE_TEAM_ADMIN,
      teamId: 2,
      email: 'admin@free-team.test',
      name: 'Free Admin',
      role: 'admin',
      pid: String(FREE_TEAM_ADMIN),
    }),
  ];
  let n = 0;
  const lead = (fields: Record<string, unknown>) =>
    lines.push(JSON.stringify({ type: 'lead', epoch: OLD + n++, isLead: true, ...fields }));
  for (let set = 0; set < sets; set++) {
    for (let i = 0; i < ids; i++)
      lead({ id: freeId(set, i), userId: FREE_TEAM_ADMIN, name: `Free ${set} ${i}`, company: 'No Mail Ltd' });
    for (let p = 0; p < persons; p++) {
      const email = personEmail(set, p);
      const [local, domain] = email.split('@') as [string, string];
      const variants = [email, email.toUpperCase(), `${local}@${domain[0]!.toUpperCase()}${domain.slice(1)}`];
      for (const [k, e] of variants.entries())
        lead({ id: personLeadId(set, p, k), userId: 2 + k, name: `Person ${set} ${p}`, email: e });
      lead({ id: personLeadId(set, p, 3), userId: 5, name: `Person ${set} ${p}`, email: `other.${email}` });
    }
    appendFileSync(file, `${lines.join('\n')}\n`);
    lines.length = 0;
  }
}

/** The v2 ids the bench needs, read from the store: each set's e-mail-free leads, each person's survivor and merged lead. */
export interface ErasureIds {
  free: string[][];
  merges: { survivor: string; merged: string }[];
}

export async function readIds(engine: Engine, where: string, sets: number, ids: number): Promise<ErasureIds> {
  const rows: { lead_id: string; uuid: string }[] = [];
  const pattern = ['free-%', 'person-%'];
  if (engine === 'sqlite') {
    const db = new Database(where, { readonly: true });
    const q = db.prepare('SELECT lead_id, uuid FROM leads WHERE lead_id LIKE ? AND epoch < ?');
    for (const p of pattern) rows.push(...(q.all(p, OLD + 100_000_000) as typeof rows));
    db.close();
  } else {
    const sql = postgres(where, { max: 1, onnotice: () => {} });
    for (const p of pattern)
      rows.push(
        ...(await sql<typeof rows>`SELECT lead_id, uuid::text AS uuid FROM leads
          WHERE lead_id LIKE ${p} AND epoch < ${OLD + 100_000_000}`),
      );
    await sql.end();
  }
  const byId = new Map(rows.map((r) => [r.lead_id, r.uuid]));
  const need = (id: string) => {
    const u = byId.get(id);
    if (u === undefined) throw new Error(`erasure bench: lead ${id} not in the store`);
    return u;
  };
  const free = Array.from({ length: sets }, (_, set) =>
    Array.from({ length: ids }, (_, i) => need(freeId(set, i))),
  );
  const merges: ErasureIds['merges'] = [];
  for (const id of byId.keys()) {
    const m = /^person-(\d+)-(\d+)-0$/.exec(id);
    if (m !== null)
      merges.push({ survivor: need(id), merged: need(personLeadId(Number(m[1]), Number(m[2]), 3)) });
  }
  return { free, merges };
}
