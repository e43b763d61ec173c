/**
 * P3a read by read: a fresh leadline (pinned to CPU 0) answers the team's oldest 100,000 leads
 * `rounds` times, each followed by the raw reference (better-sqlite3 `.all()` of the same rows +
 * `JSON.stringify`, a new connection each time, as in bench/run.ts). Prints every read, so a
 * slow first read — of either side — shows as itself instead of inside a median.
 *
 *   node --import tsx bench/range-reads.ts <SQLite store with team 1> [rounds=3] [node flags…]
 *
 * Needs member 1 (an admin of team 1) in the store; a legacy-v1 key for it is created.
 * Node flags after the rounds go to the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/p).
 * Where util-linux's `fincore` is installed, each line also says how much of the store file was
 * in the page cache before the read: a read that has to fetch pages from disk is the slow one.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LEAD_COLUMNS } from '../src/storage/rows.js';
import { BIN, freePort, SERVER_ENV, startPinned, stop } from './lib.js';
import { readAll } from './load.js';
import { memberOneKey } from './member-key.js';

const [file, rounds = '3', ...flags] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: bench/range-reads.ts <store.db> [rounds] [node flags for the server…]');
  process.exit(2);
}
const key = await memberOneKey('--db', file);

const db = new Database(file, { readonly: true });
const { epoch: end } = db
  .prepare('SELECT epoch FROM leads WHERE team_id = 1 ORDER BY epoch, seq LIMIT 1 OFFSET 100000')
  .get() as { epoch: number };
db.close();
const raw = `SELECT ${LEAD_COLUMNS} FROM leads l JOIN members m ON m.id = l.member_id
  WHERE l.team_id = 1 AND l.epoch >= 0 AND l.epoch < ${end} ORDER BY l.epoch, l.seq`;

/** MB of the file in the page cache, or '?' without fincore. */
function cached(): string {
  try {
    const bytes = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file!], {
      encoding: 'utf8',
    });
    return `${(Number(bytes.trim()) / 1e6).toFixed(0)} MB`;
  } catch {
    return '?';
  }
}
const size = `${(statSync(file).size / 1e6).toFixed(0)} MB`;

const port = await freePort();
const server = await startPinned(
  'leadline',
  0,
  [...flags, BIN, '--db', file, 'serve', '--port', String(port)],
  SERVER_ENV,
  `http://127.0.0.1:${port}/healthz`,
);
try {
  const url = `${server.url}/api/pub/leads/getLeadsTimeRangeForTeam?start=0&end=${end}`;
  for (let i = 1; i <= Number(rounds); i++) {
    const before = cached();
    const served = await readAll({ url, auth: `Bearer ${key}` });
    if (served.status !== 200) throw new Error(`leadline answered ${served.status}`);
    const reference = new Database(file, { readonly: true });
    const t0 = performance.now();
    const text = JSON.stringify(reference.prepare(raw).all());
    const ms = performance.now() - t0;
    reference.close();
    console.log(
      `read ${i} (${before} of ${size} cached): leadline ${Math.round(served.ms)} ms (${(served.bytes / 1e6).toFixed(1)} MB), ` +
        `raw read + JSON.stringify ${Math.round(ms)} ms (${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB), ` +
        `ratio ${(served.ms / ms).toFixed(2)}`,
    );
  }
} finally {
  await stop(server);
}
