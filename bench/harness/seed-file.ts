/**
 * The bench's seed files: `leadline seed`'s generator (one team of MEMBERS members, seed
 * "bench") written as NDJSON. Apart from stores.ts, which opens a PostgreSQL connection on
 * import, so scripts that only need a file (bench/import-worker-cost.ts) can take it alone.
 */
import { createWriteStream } from 'node:fs';
import { seedRecords } from '../../src/demo/seed.js';
import { MEMBERS } from './config.js';

export async function writeSeed(file: string, leads: number): Promise<void> {
  const out = createWriteStream(file);
  for (const line of seedRecords({ teams: 1, membersPerTeam: MEMBERS, leads, seed: 'bench' })) {
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}
