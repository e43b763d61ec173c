/**
 * @leadline/client's weight as a browser app ships it: each entry point (the package root and
 * `/v1`, `/webhooks`) bundled with its run-time dependency (openapi-fetch), minified, gzipped; no types.
 * Fails above the budget (issue 14: under 10 KB). `.ci/run` runs it:
 *
 *   node --import tsx scripts/client-size.ts
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const BUDGET = 10 * 1024;
const ENTRIES = {
  '@leadline/client': 'index.ts',
  '@leadline/client/v1': 'v1.ts',
  '@leadline/client/webhooks': 'webhooks.ts',
};

let over = false;
for (const [name, file] of Object.entries(ENTRIES)) {
  const result = await build({
    entryPoints: [new URL(`../packages/client/src/${file}`, import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const gzipped = gzipSync(code, { level: 9 }).length;
  const verdict = gzipped < BUDGET ? 'under' : 'OVER';
  console.log(
    `${name}: ${code.length} B minified, ${gzipped} B gzipped (${(gzipped / 1024).toFixed(1)} KB, ${verdict} the ${BUDGET / 1024} KB budget)`,
  );
  over ||= gzipped >= BUDGET;
}
if (over) process.exit(1);
