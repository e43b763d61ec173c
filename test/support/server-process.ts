import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/leadline.js', import.meta.url));

/**
 * The `leadline` command runs the compiled dist/, not src/: a test run straight from a checkout
 * whose dist/ is missing or older than a source file tests yesterday's code, and fails (or
 * passes) for reasons the test does not name. `npm test` builds first when dist/ is stale
 * (`pretest`: scripts/prepare.mjs, the same check); a single file run by hand
 * (`node --import tsx --test test/cli/…`) does not, so say so up front.
 */
function staleBuild(): string | null {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  // `npm run build` touches dist/.built when it is done (tsc leaves an output it would write
  // unchanged alone, so a source file's own .js can be older than the source and still current).
  const stamp = join(root, 'dist', '.built');
  if (!existsSync(stamp)) return 'dist/ is not built';
  const built = statSync(stamp).mtimeMs;
  for (const file of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })) {
    if (file.endsWith('.ts') && statSync(join(root, 'src', file)).mtimeMs > built)
      return `src/${file} changed after the last build`;
  }
  return null;
}

const stale = staleBuild();
if (stale !== null)
  throw new Error(`${stale}: run \`npm run build\` first (npm test does it; a test file run alone does not)`);

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Lines the server wrote to stdout (its JSON log). */
  logs: string[];
  /** What the server wrote to stderr so far (the demo banner, a start failure). */
  stderr(): string;
  /** Sends `signal` and waits for the exit; a server not gone after `killAfterMs` (30 s) is killed. */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
}

/** Servers started and not yet exited: `stopAll` ends the ones a failed test left running. */
const live = new Set<ChildProcess>();

/** Stops, by their own PIDs, the servers still running (use in `after`, so a failure cannot hang the run). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...live].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    }),
  );
}

/**
 * Starts `leadline serve` on a free port as its own process, and waits until it listens (read
 * from its info-level log line, so LOG_LEVEL must stay at info or below). `args` are the global
 * options (the store), `serveArgs` further options of `serve` (`--demo`).
 */
export async function startServerProcess(
  args: string[],
  env: Record<string, string> = {},
  serveArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, ...args, 'serve', '--port', '0', ...serveArgs], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const logs: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (m?.[1] !== undefined) resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
    setTimeout(
      () => reject(new Error(`server did not report listening within 30 s: ${stderr}`)),
      30_000,
    ).unref();
  });
  return {
    child,
    url,
    logs,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM', killAfterMs = 30_000) {
      // Ended already (by an exit or a signal): no 'exit' event will come again.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      // A server that does not stop (a hung shutdown) is killed, so the test fails by its own
      // assertions instead of hanging the whole run.
      const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      try {
        const [code] = (await once(child, 'exit')) as [number | null];
        return code;
      } finally {
        clearTimeout(kill);
      }
    },
  };
}

/** Resident set size of a process in bytes, from /proc. */
export function rssOf(pid: number, read: (path: string) => string): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`));
  return m?.[1] === undefined ? 0 : Number(m[1]) * 1024;
}
