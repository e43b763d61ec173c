import { readProfile } from './cpu-profile.js';
const p = readProfile(process.argv[2]!);
const self = new Map<string, number>();
const byId = new Map(p.nodes.map((n) => [n.id, n]));
for (let i = 0; i < p.samples.length; i++) {
  const n = byId.get(p.samples[i]!)!;
  const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(node_modules|dist)\//, '$1/')}:${n.callFrame.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log('total', (total / 1e6).toFixed(2), 's');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 25))) console.log((v / 1e6).toFixed(3), k);
