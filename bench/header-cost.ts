/**
 * What the v1 rules' response headers alone cost: bare node:http answering the same constant
 * body (bench/reference-http.ts) without and with the headers a getLastLead answer carries
 * (deprecation, sunset link, rate-limit fields, ETag, cache-control, request id, nosniff), each
 * pinned to CPU 0 and driven by wrk on CPU 1, alternated rounds.
 *
 *   node --import tsx bench/header-cost.ts [rounds] [seconds]
 */
import { fileURLToPath } from 'node:url';
import { freePort, median, startPinned, stop } from './lib.js';
import { drive } from './load.js';

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 5);
const server = fileURLToPath(new URL('./reference-http.ts', import.meta.url));
const modes = { plain: [] as string[], 'v1 headers': ['--v1-headers'] };
const rps: Record<string, number[]> = { plain: [], 'v1 headers': [] };

for (let round = 1; round <= rounds; round++) {
  const order = Object.entries(modes);
  if (round % 2 === 0) order.reverse();
  for (const [name, extra] of order) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const target = await startPinned(name, 0, ['--import', 'tsx', server, String(port), ...extra], {}, url);
    try {
      const m = await drive({ url }, seconds, 10);
      rps[name]!.push(m.rps);
      console.log(`round ${round} ${name}: ${Math.round(m.rps)} req/s`);
    } finally {
      await stop(target);
    }
  }
}
const plain = median(rps.plain!);
const headers = median(rps['v1 headers']!);
console.log(`medians of ${rounds}: plain ${Math.round(plain)}, v1 headers ${Math.round(headers)} req/s`);
console.log(
  `v1 headers ÷ plain ${(headers / plain).toFixed(2)}; ${(1e6 / headers - 1e6 / plain).toFixed(2)} µs a request`,
);
