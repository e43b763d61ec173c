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

/** none: 4 headers set in the handler; async, callback: 4 onRequest hooks setting one each and 3
 * empty onResponse hooks, in either style; one: a single onRequest hook setting the 4 and a single
 * empty onResponse hook. */
const MODES = ['none', 'async', 'callback', 'one'];
const mode = process.argv[2];
if (mode !== undefined && MODES.includes(mode)) {
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
  if (mode === 'one') {
    app.addHook('onRequest', async (_q, r) => {
      for (let i = 0; i < 4; i++) r.header(`x-h${i}`, '1');
    });
    app.addHook('onResponse', async () => {});
  }
  app.get('/', async (_q, reply) => {
    if (mode === 'none') for (let i = 0; i < 4; i++) reply.header(`x-h${i}`, '1');
    return reply.send('{"a":1}');
  });
  await app.listen({ port: Number(process.argv[3]), host: '127.0.0.1' });
} else {
  const results: Record<string, number[]> = Object.fromEntries(MODES.map((m) => [m, []]));
  const servers = Object.keys(results).map((m, i) => {
    const c = spawn(
      'taskset',
      ['-c', '0', process.execPath, '--import', 'tsx', 'bench/fastify-hooks.ts', m, String(41000 + i)],
      { stdio: 'inherit' },
    );
    return c;
  });
  // Ready when each answers (four servers starting through tsx on one core take a few seconds).
  for (const i of servers.keys()) {
    for (let tries = 0; ; tries++) {
      const up = await fetch(`http://127.0.0.1:${41000 + i}/`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (tries === 300) throw new Error(`server ${i} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
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
  } finally {
    for (const s of servers) s.kill();
  }
}
