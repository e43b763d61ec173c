/**
 * What Fastify's hook style costs (issue 16): three Fastify servers answering a constant — no
 * hooks, four onRequest and three onResponse hooks written async, the same written with a
 * callback (`done`) — pinned to CPU 0, driven in turn for three rounds of 4 s at 10 connections
 * (wrk on CPU 1 when installed). Prints each one's medians and its ratio to no hooks.
 *
 *   node --import tsx bench/fastify-hooks.ts
 */
import { spawn } from 'node:child_process';
import Fastify from 'fastify';
import { drive } from './load.js';

const mode = process.argv[2];
if (mode === 'async' || mode === 'callback' || mode === 'none') {
  const app = Fastify();
  for (let i = 0; i < 4; i++) {
    if (mode === 'async')
      app.addHook('onRequest', async (_q, r) => {
        r.header(`x-h${i}`, '1');
      });
    if (mode === 'callback')
      app.addHook('onRequest', (_q, r, done) => {
        r.header(`x-h${i}`, '1');
        done();
      });
  }
  for (let i = 0; i < 3; i++) {
    if (mode === 'async') app.addHook('onResponse', async () => {});
    if (mode === 'callback') app.addHook('onResponse', (_q, _r, done) => done());
  }
  app.get('/', async (_q, reply) => reply.send('{"a":1}'));
  await app.listen({ port: Number(process.argv[3]), host: '127.0.0.1' });
} else {
  const results: Record<string, number[]> = { none: [], async: [], callback: [] };
  const servers = Object.keys(results).map((m, i) => {
    const c = spawn(
      'taskset',
      ['-c', '0', process.execPath, '--import', 'tsx', 'bench/fastify-hooks.ts', m, String(41000 + i)],
      { stdio: 'inherit' },
    );
    return c;
  });
  await new Promise((r) => setTimeout(r, 3000));
  for (let round = 0; round < 3; round++) {
    for (const [i, m] of Object.keys(results).entries()) {
      const r = await drive({ url: `http://127.0.0.1:${41000 + i}/` }, 4, 10);
      results[m]!.push(r.rps);
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[1]!;
  for (const m of Object.keys(results))
    console.log(
      m,
      results[m]!.map(Math.round).join(' '),
      'median',
      Math.round(med(results[m]!)),
      (med(results[m]!) / med(results.none!)).toFixed(3),
    );
  for (const s of servers) s.kill();
}
