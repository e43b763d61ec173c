/**
 * Webhook delivery figures (issue 13 §8): creation → delivery latency at the default poll
 * settings, one instance's delivery throughput to a fast receiver, and a 100k-lead import
 * delivered in full. The receiver runs in its own process (bench/webhook-receiver.mjs); the
 * delivery loop is the one `leadline serve` runs, in this process, with the default settings.
 *
 *   taskset -c 1 node --import tsx bench/webhooks.ts [sqlite|postgres] [leads for the import]
 *
 * The receiver is pinned to CPU 0, this process to CPU 1 (the taskset above).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pino from 'pino';
import { loadWebhookConfig } from '../src/config.js';
import { DeliveryLoop } from '../src/delivery/loop.js';
import { addBenchEndpoint, benchLeads, loadRecords, openOutboxStore } from './harness/outbox-store.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const BIG = Number(process.argv[3] ?? 100_000);
const LATENCY_LEADS = 300;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  // The receiver on CPU 0, this process (run with taskset -c 1) on CPU 1, as bench/run.ts pins.
  const receiver = spawn(
    'taskset',
    ['-c', '0', process.execPath, join(import.meta.dirname, 'webhook-receiver.mjs')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = Number(
    await new Promise<string>((resolve) =>
      receiver.stdout.once('data', (c: Buffer) => resolve(c.toString())),
    ),
  );
  const url = `http://127.0.0.1:${port}`;
  type Counts = { unique: number; duplicates: number; last: number };
  const count = async () => (await fetch(`${url}/count`)).json() as Promise<Counts>;
  const stats = async () => (await fetch(`${url}/stats`)).json() as Promise<Counts & { latencies: number[] }>;
  const receiverCpu = async () => {
    const { user, system } = (await (await fetch(`${url}/cpu`)).json()) as NodeJS.CpuUsage;
    return (user + system) / 1000;
  };
  const ownCpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const reset = () => fetch(`${url}/stats`, { method: 'DELETE' });
  const { store, done } = await openOutboxStore(engine);
  // The default settings, unless the environment sets LEADLINE_WEBHOOK_* (as `leadline serve` reads them).
  const config = loadWebhookConfig({ ...process.env, LEADLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
  try {
    await addBenchEndpoint(store, `${url}/hooks`);
    const loop = new DeliveryLoop(store, config, pino({ level: 'warn' }));
    loop.start();
    // 1. Latency: leads stored one at a time (each its own import transaction), 20 ms apart.
    for (let i = 0; i < LATENCY_LEADS; i++) {
      await loadRecords(store, benchLeads('b', 1_000_000 + i, 1));
      await new Promise((r) => setTimeout(r, 20));
    }
    while ((await count()).unique < LATENCY_LEADS) await new Promise((r) => setTimeout(r, 50));
    const lat = (await stats()).latencies;
    await loop.stop();
    await reset();
    // 2 and 3. A whole import waiting in the outbox, then one instance delivers it.
    const t0 = Date.now();
    for (let i = 0; i < BIG; i += 10_000)
      await loadRecords(store, benchLeads('b', i, Math.min(10_000, BIG - i)));
    const importMs = Date.now() - t0;
    const loop2 = new DeliveryLoop(store, config, pino({ level: 'warn' }));
    const [cpu0, rcpu0] = [ownCpu(), await receiverCpu()];
    const start = Date.now();
    loop2.start();
    let s = await count();
    while (s.unique < BIG) {
      await new Promise((r) => setTimeout(r, 200));
      s = await count();
    }
    const deliverMs = s.last - start;
    const [cpu, rcpu, wall] = [ownCpu() - cpu0, (await receiverCpu()) - rcpu0, Date.now() - start];
    await loop2.stop();
    console.log(
      `engine ${engine}; settings: poll ${config.pollMs} ms, concurrency ${config.concurrency}, per team ${config.teamConcurrency}`,
    );
    console.log(
      `creation -> delivery latency over ${lat.length} leads: p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms`,
    );
    console.log(`import of ${BIG} leads with the endpoint registered: ${(importMs / 1000).toFixed(1)} s`);
    console.log(
      `delivered ${s.unique} of ${BIG} (duplicates ${s.duplicates}) in ${(deliverMs / 1000).toFixed(1)} s: ${Math.round(s.unique / (deliverMs / 1000))} events/s`,
    );
    // Both on their own CPU: a figure near 100 % is the side that sets the pace.
    const busy = (ms: number) => `${Math.round((100 * ms) / wall)} %`;
    console.log(`CPU busy while delivering: leadline ${busy(cpu)}, receiver ${busy(rcpu)}`);
  } finally {
    receiver.kill();
    await done();
  }
}

await main();
