import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createKey } from '../domain/keys.js';
import type { Store } from '../domain/store.js';
import { createLogger } from '../logger.js';
import { startServer } from '../server.js';
import { openStore } from '../storage/open-store.js';
import { type GlobalOptions, isExpected, storeLocation } from './context.js';
import { fail } from './output.js';
import { seedStore } from './seed.js';

const DEMO = { teams: 3, membersPerTeam: 8, leads: 3000, seed: 'demo' };

/** Seeds the demo data set and returns a key of the first seeded team's admin. */
async function seedDemo(
  store: Store,
): Promise<{ key: string; email: string; teamId: number; leads: number }> {
  const firstMember = (await store.directory.maxIds()).member + 1;
  const summary = await seedStore(store, DEMO);
  for (let id = firstMember; id < firstMember + DEMO.membersPerTeam; id++) {
    const member = await store.directory.findMember(id);
    if (member?.role === 'admin') {
      // Legacy-granted, so the demo can try v1 as well as v2 (keys made after the freeze cannot).
      const created = await createKey(store, { member: id, label: 'demo (npm start)', legacyV1: true });
      return { key: created.key, email: member.email, teamId: member.teamId, leads: summary.leads };
    }
  }
  throw new Error('the demo data set has no team admin');
}

/** `base` is the service's public URL, so the lines work as printed (the port it got on --port 0). */
function demoBanner(
  base: string,
  demo: { key: string; email: string; teamId: number; leads: number },
): string {
  return [
    '',
    `leadline: seeded a demo data set (${demo.leads} leads) into the empty store.`,
    `Demo API key of team admin ${demo.email} (shown once; keep it):`,
    `  ${demo.key}`,
    'Try:',
    `  curl -H "Authorization: Bearer ${demo.key}" ${base}/api/pub/leads/getLastLeadTeam`,
    'or the same with v2 (the search that replaces v1; docs at /docs/v2):',
    `  curl -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" ${base}/api/pub/v2/leads/search \\`,
    `    -d '{"filters":{"teamId":${demo.teamId}},"limit":1}'`,
    '',
  ].join('\n');
}

/** `leadline serve [--port N] [--host H] [--demo]`. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service')
    .option('--port <n>', 'port to listen on (default 3000, or PORT)')
    .option('--host <h>', 'address to listen on (default 127.0.0.1, or HOST)')
    .option('--demo', 'on an empty store, seed demo data first and print a working key (npm start)')
    .action(async (opts: { port?: string; host?: string; demo?: boolean }) => {
      const global = program.opts<GlobalOptions>();
      const json = global.json === true;
      try {
        if (opts.port !== undefined && !/^\d+$/.test(opts.port))
          throw new Error(`--port ${opts.port} is not a port number`);
        const location = storeLocation(global);
        const config = loadConfig(process.env, {
          ...(opts.port === undefined ? {} : { port: Number(opts.port) }),
          ...(opts.host === undefined ? {} : { host: opts.host }),
          ...location,
        });
        const logger = createLogger(config.logLevel);
        const store = await openStore({ ...location, databaseReadUrl: config.databaseReadUrl }, config.pg);
        await store.migrate();
        const demo = opts.demo === true && (await store.directory.isEmpty()) ? await seedDemo(store) : null;
        const server = await startServer(config, store, logger);
        if (demo !== null) process.stderr.write(`${demoBanner(server.publicUrl, demo)}\n`);
      } catch (err) {
        fail(json, isExpected(err) ? err.message : `cannot start: ${(err as Error).message}`);
      }
    });
}
