/**
 * Two CPU profiles side by side, per request: each function's self time over the middle half of
 * each profile, divided by the requests served in that half — µs of one core per request when
 * samples are 1 ms apart — sorted by how much more the first spends than the second.
 *
 *   PROFILE_KEEP=1 PROFILE_SECONDS=15 node --import tsx bench/profile.ts --db <store> getLastLead
 *   PROFILE_KEEP=1 PROFILE_SECONDS=15 PROFILE_TARGET=ideal-fastify node --import tsx bench/profile.ts --db <store> getLastLead
 *   node --import tsx bench/profile-diff.ts <first.cpuprofile> <its requests> <second.cpuprofile> <its requests> [rows]
 *
 * The requests of a profile are printed by bench/profile.ts beside its req/s;
 * the load spans the profile but for the server's start and stop, so the middle half of the
 * samples is taken as half of the requests.
 */
import { frameLabel, readProfile, sampleTimes } from './cpu-profile.js';

const [fileA, requestsA, fileB, requestsB, rowsArg = '40'] = process.argv.slice(2);
if (fileA === undefined || fileB === undefined || requestsA === undefined || requestsB === undefined) {
  console.error('usage: bench/profile-diff.ts <a.cpuprofile> <requests> <b.cpuprofile> <requests> [rows]');
  process.exit(2);
}

/** Self samples per 1,000 requests by function, and busy samples per 1,000 requests. */
function perRequest(file: string, requests: number): { self: Map<string, number>; busy: number } {
  const p = readProfile(file);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const times = sampleTimes(p);
  const first = times[0] ?? 0;
  const span = (times[times.length - 1] ?? 0) - first;
  const from = first + span / 4;
  const to = first + (3 * span) / 4;
  const self = new Map<string, number>();
  let inWindow = 0;
  let busy = 0;
  p.samples.forEach((id, i) => {
    const at = times[i]!;
    if (at < from || at > to) return;
    inWindow++;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    busy++;
    const name = frameLabel(node);
    self.set(name, (self.get(name) ?? 0) + 1);
  });
  const scale = 1000 / (requests * (inWindow / p.samples.length));
  for (const [k, v] of self) self.set(k, v * scale);
  return { self, busy: busy * scale };
}

const a = perRequest(fileA, Number(requestsA));
const b = perRequest(fileB, Number(requestsB));
console.log(`busy samples per 1,000 requests: first ${a.busy.toFixed(2)}, second ${b.busy.toFixed(2)}`);
console.log('  first  second    diff  function');
const names = new Set([...a.self.keys(), ...b.self.keys()]);
const rows = [...names].map((n) => ({ n, x: a.self.get(n) ?? 0, y: b.self.get(n) ?? 0 }));
rows.sort((r, s) => s.x - s.y - (r.x - r.y));
const f = (v: number) => v.toFixed(3).padStart(7);
for (const r of rows.slice(0, Number(rowsArg))) console.log(`${f(r.x)} ${f(r.y)} ${f(r.x - r.y)}  ${r.n}`);
