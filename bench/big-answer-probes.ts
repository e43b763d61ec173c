/**
 * P3c up close: a fresh leadline (pinned to CPU 0, `--trace-gc`) answers getLastLead 200 times
 * unloaded, then the team's whole range while getLastLead probes are sent every ~20 ms, as in
 * bench/run.ts. Prints both latency distributions and the server's garbage-collection pauses
 * during the big answer, so the probes' tail can be set against them, and its RSS growth (P3b).
 *
 *   node --import tsx bench/big-answer-probes.ts --db <file> | --database-url <url>
 *
 * Needs member 1 (an admin of team 1) in the store; a legacy-v1 key for it is created.
 */
import { BIN, freePort, SERVER_ENV, startPinned, stop } from './lib.js';
import { probe, quantile, readAll, rssOf } from './load.js';
import { memberOneKey } from './member-key.js';

const [flag, where] = process.argv.slice(2);
if ((flag !== '--db' && flag !== '--database-url') || where === undefined) {
  console.error('usage: bench/big-answer-probes.ts --db <file> | --database-url <url>');
  process.exit(2);
}
const key = await memberOneKey(flag, where);

// --trace-gc lines: "… Scavenge 36.9 (54.5) -> 26.8 (59.5) MB, 8.54 / 0.31 ms …"; pause = first figure.
let measuring = false;
const pauses: number[] = [];
const kinds = new Map<string, number[]>();
const port = await freePort();
const server = await startPinned(
  'leadline',
  0,
  ['--trace-gc', BIN, flag, where, 'serve', '--port', String(port)],
  SERVER_ENV,
  `http://127.0.0.1:${port}/healthz`,
  (line) => {
    const m = /(Scavenge|Mark-Compact|Mark-Sweep).* MB, ([\d.]+) \//.exec(line);
    if (m !== null && measuring) {
      pauses.push(Number(m[2]));
      kinds.set(m[1]!, [...(kinds.get(m[1]!) ?? []), Number(m[2])]);
    }
  },
);
const base = server.url;
try {
  const auth = `Bearer ${key}`;
  const last = { url: `${base}/api/pub/leads/getLastLead`, auth };
  for (let i = 0; i < 50; i++) await probe(last);
  const unloaded: number[] = [];
  for (let i = 0; i < 200; i++) unloaded.push((await probe(last)).ms);

  measuring = true;
  const pid = server.child.pid!;
  const rssBefore = rssOf(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssOf(pid));
  }, 20);
  let done = false;
  const answer = readAll({ url: `${base}/api/pub/leads/getLeadsTimeRangeForTeam?start=0`, auth }).finally(
    () => {
      done = true;
    },
  );
  const during: number[] = [];
  while (!done) {
    const p = await probe(last);
    if (p.status !== 200) throw new Error(`getLastLead answered ${p.status}`);
    during.push(p.ms);
    await new Promise((r) => setTimeout(r, 20));
  }
  const big = await answer;
  measuring = false;
  clearInterval(sampler);

  const ms = (xs: number[], q: number) => quantile(xs, q).toFixed(2);
  const total = pauses.reduce((a, b) => a + b, 0);
  console.log(
    `big answer: ${(big.bytes / 1e6).toFixed(0)} MB in ${(big.ms / 1000).toFixed(1)} s; server RSS +${((rssPeak - rssBefore) / 1048576).toFixed(1)} MB`,
  );
  console.log(`getLastLead unloaded (200): p50 ${ms(unloaded, 0.5)} p99 ${ms(unloaded, 0.99)} ms`);
  console.log(
    `getLastLead during (${during.length}): p50 ${ms(during, 0.5)} p99 ${ms(during, 0.99)} max ${Math.max(...during).toFixed(2)} ms; ` +
      `p99 ratio ${(quantile(during, 0.99) / quantile(unloaded, 0.99)).toFixed(2)}`,
  );
  console.log(
    `GC pauses during (${pauses.length}): p50 ${ms(pauses, 0.5)} p99 ${ms(pauses, 0.99)} max ${Math.max(...pauses).toFixed(2)} ms; ` +
      `${total.toFixed(0)} ms in all, ${((100 * total) / big.ms).toFixed(1)} % of the answer`,
  );
  for (const [kind, xs] of kinds)
    console.log(
      `  ${kind} (${xs.length}): p50 ${ms(xs, 0.5)} p99 ${ms(xs, 0.99)} max ${Math.max(...xs).toFixed(2)} ms`,
    );
} finally {
  await stop(server);
}
