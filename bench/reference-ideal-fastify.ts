import Fastify from 'fastify';
import { IdealWork } from './ideal.js';

/**
 * Reference for P1 and P6 (issue 16): the ideal data path (bench/ideal.ts) as routes of a
 * minimal Fastify app — the same work as bench/reference-ideal.ts (node:http), so the two differ
 * by what the framework costs: routing, its request and reply objects, hooks, JSON body parsing.
 * Fastify as leadline runs it (the same version, no logger), with none of leadline's plugins.
 *
 *   node --import tsx bench/reference-ideal-fastify.ts <port> <sqlite|postgres> <file or URL>
 */
const [portArg, engine, where] = process.argv.slice(2);
if ((engine !== 'sqlite' && engine !== 'postgres') || where === undefined)
  throw new Error('usage: reference-ideal-fastify.ts <port> <sqlite|postgres> <file or URL>');
const work = await IdealWork.open(engine, where, 'remember');

const app = Fastify({ logger: false });
const JSON_TYPE = 'application/json; charset=utf-8';
app.get('/api/pub/leads/getLastLead', async (request, reply) => {
  const a = await work.lastLead(request.headers.authorization);
  return reply.code(a.status).type(JSON_TYPE).send(a.body);
});
app.post('/api/pub/v2/leads/search', async (request, reply) => {
  const a = await work.search(request.headers.authorization, request.body);
  return reply.code(a.status).type(JSON_TYPE).send(a.body);
});
app.get('/healthz', async () => ({}));
await app.listen({ port: Number(portArg), host: '127.0.0.1' });
// An orderly exit on SIGTERM, so `node --cpu-prof` writes its profile (bench/profile.ts).
process.once('SIGTERM', () => process.exit(0));
