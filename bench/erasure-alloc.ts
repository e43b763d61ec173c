/**
 * What a 1,000-id erasure allocates in the server (issue 40, the PostgreSQL 1,000-id window):
 * `POST /api/pub/v2/erasures` with 1,000 lead ids, ten times, through the app in this process
 * (`inject`: the body parsed and validated, the use case, the store's statements, the answer),
 * sampled by V8's heap profiler with the objects the garbage collector has already taken
 * counted too — so the total is what the requests allocated, not what is left. Prints the total
 * and the functions that allocated most. A fresh store of 11,000 leads in a schema of its own.
 *
 *   node --import tsx bench/erasure-alloc.ts [sqlite|postgres]   (postgres by default)
 *
 * Why it matters: the server's scavenges of that garbage, during the requests, were the event
 * loop's longest stops in bench/erasure-load.ts's 1,000-id windows (bench/RESULTS.md "Erasure
 * under load").
 */
import { Session } from 'node:inspector/promises';
import { Readable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { importRecords } from '../src/io/import/run-import.js';
import { createKey } from '../src/keys/create-key.js';
import type { Engine } from './harness/config.js';
import { freshStore, removeStores } from './harness/stores.js';

const engine = (process.argv[2] ?? 'postgres') as Engine;
const LEADS = 11_000;
const PER_REQUEST = 1_000;
const REQUESTS = 10;

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const { store } = await freshStore(engine, 'alloc');
const records = [
  { type: 'team', id: 1, name: 'Bench' },
  { type: 'member', id: 11, teamId: 1, email: 'bench@bench.test', role: 'admin', pid: 'p' },
  ...Array.from({ length: LEADS }, (_, i) => ({
    type: 'lead',
    userId: 11,
    id: `l${i}`,
    epoch: 1_700_000_000_000 + i,
    isLead: true,
    name: `Lead ${i}`,
    company: 'Bench',
  })),
];
await importRecords(store, [
  { name: 'bench.ndjson', open: () => Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]) },
]);
const key = (await createKey(store, { member: 11 })).key;
const app = await buildApp({ config: loadConfig({ ...process.env, LEADLINE_RATE_LIMIT: '1000000' }), store });
const ids: string[] = [];
for await (const batch of store.leads.scan({ teamId: 1 }, 1_000)) for (const l of batch) ids.push(l.uuid);

const erase = async (k: number): Promise<void> => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/pub/v2/erasures',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ leadIds: ids.slice(k * PER_REQUEST, (k + 1) * PER_REQUEST) }),
  });
  if (res.statusCode !== 201) throw new Error(`erasure ${k}: ${res.statusCode} ${res.body}`);
};

try {
  await erase(0); // compiled and warm
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  const t0 = performance.now();
  for (let k = 1; k <= REQUESTS; k++) await erase(k);
  const ms = performance.now() - t0;
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  session.disconnect();

  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode): void => {
    const url = n.callFrame.url;
    const file = url.includes('node_modules/')
      ? url.replace(/^.*node_modules\//, '')
      : url.replace(/^.*?\/(src|bench)\//, '$1/');
    const site = `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
    if (n.selfSize > 0) {
      bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(
    JSON.stringify({
      engine,
      requests: REQUESTS,
      idsPerRequest: PER_REQUEST,
      allocatedMBPerRequest: Number((total / REQUESTS / 1e6).toFixed(2)),
      msPerRequest: Number((ms / REQUESTS).toFixed(1)),
    }),
  );
  for (const [site, bytes] of top)
    console.log(`${(bytes / REQUESTS / 1e3).toFixed(0).padStart(6)} kB  ${site}`);
} finally {
  await app.close();
  await store.close();
  await removeStores();
}
