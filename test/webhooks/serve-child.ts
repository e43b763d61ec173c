import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/open-store.js';
import { startServer } from '../../src/server.js';

/**
 * `node --import tsx serve-child.ts <db path> <database url or ''> [clock ahead ms]`: `leadline
 * serve` as its own process (the server and its delivery loop) on the given store, port 0,
 * webhooks allowed to loopback; prints `listening` once up. A test SIGKILLs it mid-delivery.
 * With a clock ahead, the process's `Date.now` stands that far in the future: a restart that
 * finds its predecessor's leases already run out, without waiting them out.
 */
const [dbPath = '', databaseUrl = '', ahead = '0'] = process.argv.slice(2);
const aheadMs = Number(ahead);
if (aheadMs !== 0) {
  const realNow = Date.now;
  Date.now = () => realNow() + aheadMs;
}
const config = loadConfig(
  { ...process.env, PORT: '0', LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true', LEADLINE_WEBHOOK_POLL_MS: '20' },
  { dbPath, databaseUrl: databaseUrl === '' ? null : databaseUrl },
);
const store = await openStore({ dbPath, databaseUrl: config.databaseUrl });
await store.migrate();
await startServer(config, store, pino({ level: 'warn' }, pino.destination(2)));
process.stdout.write('listening\n');
