import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { openStore } from '../open-store.js';
import { v1Phase } from '../retirement/phase.js';
import { type GlobalOptions, isExpected, storeLocation } from './command-context.js';
import { demoAdmin, demoBanner, returningBanner, seedDemo } from './demo.js';
import { fail } from './output.js';
import { startWarnings } from './serve-warnings.js';
import { phaseLine } from './v1-status.js';

/** `leadline serve [--port N] [--host H] [--demo]`. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service')
    .option('--port <n>', 'port to listen on (default 3000, or PORT)')
    .option('--host <h>', 'address to listen on (default 127.0.0.1, or HOST)')
    .option(
      '--demo',
      'on an empty store, seed demo data first and print a working key; on a store with data, the command that makes one (npm start)',
    )
    .action(async (opts: { port?: string; host?: string; demo?: boolean }) => {
      const global = program.opts<GlobalOptions>();
      const json = global.json === true;
      // Who started it, read before anything else: a SIGTERM that ends npm's shell while the
      // server is still starting must not leave it watching the process that inherited it.
      const startedBy = process.ppid;
      try {
        if (opts.port !== undefined && !/^\d+$/.test(opts.port))
          throw new Error(`--port ${opts.port} is not a port number`);
        const location = storeLocation(global);
        const config = loadConfig(process.env, {
          ...(opts.port === undefined ? {} : { port: Number(opts.port) }),
          ...(opts.host === undefined ? {} : { host: opts.host }),
          ...location,
        });
        // The server's modules (Fastify, pino, the metrics, Redis…) load for this command alone:
        // every other command starts without them.
        const [{ createLogger }, { startServer }] = await Promise.all([
          import('../logger.js'),
          import('../server.js'),
        ]);
        const logger = createLogger(config.logLevel, undefined, { pretty: process.stdout.isTTY === true });
        const store = await openStore({ ...location, databaseReadUrl: config.databaseReadUrl }, config.pg);
        await store.migrate();
        const empty = opts.demo === true && (await store.directory.isEmpty());
        const demo = empty ? await seedDemo(store) : null;
        const admin = opts.demo === true && !empty ? await demoAdmin(store) : null;
        const runtime = { node: process.versions.node, sqlite: config.databaseUrl === null };
        for (const line of startWarnings(config.webhooks, runtime)) logger.warn(line);
        const server = await startServer(config, store, logger);
        if (process.env.npm_command !== undefined) endWithParent(startedBy);
        // The operator sees where the retirement of v1 stands on every start (docs/v1-deprecation-policy.md).
        const phase = v1Phase(config.v1, Date.now());
        logger.info({ v1Phase: phase }, phaseLine(phase, config.v1));
        if (demo !== null) process.stderr.write(`${demoBanner(server.publicUrl, demo)}\n`);
        else if (opts.demo === true)
          process.stderr.write(`${returningBanner(server.publicUrl, admin, global)}\n`);
      } catch (err) {
        fail(json, isExpected(err) ? err.message : `cannot start: ${(err as Error).message}`);
      }
    });
}

/**
 * Started by npm (`npx leadline serve`, an npm script), this process is npm's grandchild: npm
 * forwards a SIGTERM to the `sh -c` it started, which dies and leaves the service running on its
 * port (docs/cli.md). When the process that started it is gone — also if it went while the
 * server was starting — it shuts down as on SIGTERM.
 * Only under npm: a service started by a shell with `&`, nohup or a supervisor outlives its parent.
 */
function endWithParent(parent: number): void {
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 200);
  watch.unref();
}
