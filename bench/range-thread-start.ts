/**
 * What the v1 range thread costs in memory once (docs/v1-reference.md C4 "Long ranges"): a fresh
 * leadline (pinned to CPU 0) answers 200 getLastLead, then three v1 ranges that hold no lead;
 * the server's RSS is printed before the first (the thread not started) and after each.
 *
 *   node --import tsx bench/range-thread-start.ts --db <file>
 *
 * Needs member 1 (an admin of team 1) in the store (`leadline seed` makes one).
 */
import { BIN, freePort, SERVER_ENV, startPinned, stop } from './lib.js';
import { probe, rssOf } from './load.js';
import { memberOneKey } from './member-key.js';

const [flag, file] = process.argv.slice(2);
if (flag !== '--db' || file === undefined) {
  console.error('usage: bench/range-thread-start.ts --db <file>');
  process.exit(2);
}
const key = await memberOneKey('--db', file);

const port = await freePort();
const server = await startPinned(
  'leadline',
  0,
  [BIN, '--db', file, 'serve', '--port', String(port)],
  SERVER_ENV,
  `http://127.0.0.1:${port}/healthz`,
);
try {
  const auth = `Bearer ${key}`;
  const mb = () => (rssOf(server.child.pid!) / 1048576).toFixed(1);
  for (let i = 0; i < 200; i++) await probe({ url: `${server.url}/api/pub/leads/getLastLead`, auth });
  console.log(`RSS after 200 getLastLead: ${mb()} MB`);
  for (let i = 1; i <= 3; i++) {
    await probe({ url: `${server.url}/api/pub/leads/getLeadsTimeRange?start=${Date.now()}`, auth });
    console.log(`RSS after empty range ${i}: ${mb()} MB`);
  }
} finally {
  await stop(server);
}
