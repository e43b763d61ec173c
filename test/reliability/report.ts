import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One line per measured figure, easy to grep from the runner's output: `RELIABILITY {"r": "R1", …}`. */
export function report(r: string, figures: Record<string, unknown>): void {
  console.log(`RELIABILITY ${JSON.stringify({ r, ...figures })}`);
}

/** Where server processes of the reliability runs leave their logs, for R8 to scan after the suite. */
export const LOG_DIR = join(tmpdir(), 'leadline-reliability-logs');

/** Keeps a server process's log lines for R8's scan (docs/reliability.md, R8). */
export function saveLogs(name: string, lines: string[]): void {
  mkdirSync(LOG_DIR, { recursive: true });
  writeFileSync(join(LOG_DIR, `${name}-${process.pid}-${Date.now()}.log`), `${lines.join('\n')}\n`);
}
