import { createServer, type ServerResponse } from 'node:http';
import { type Answer, IdealWork, type KeyMemory } from './ideal.js';

/**
 * Reference for P1, P3c and P6 (issue 16): the ideal data path (bench/ideal.ts) behind bare
 * node:http — getLastLead, the v2 search page and a team's whole v1 range, nothing else.
 *
 *   node --import tsx bench/reference-ideal.ts <port> <sqlite|postgres> <file or URL> [remember|every]
 *
 * `every` reads and hashes the key on every request: the earlier "same work" reference
 * (bench/reference-same-work.ts until issue 16).
 */
const [portArg, engine, where, memory = 'remember'] = process.argv.slice(2);
if ((engine !== 'sqlite' && engine !== 'postgres') || where === undefined)
  throw new Error('usage: reference-ideal.ts <port> <sqlite|postgres> <file or URL> [remember|every]');
const work = await IdealWork.open(engine, where, memory as KeyMemory);

function send(res: ServerResponse, a: Answer): void {
  res.writeHead(a.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(a.body),
  });
  res.end(a.body);
}

const answer = (res: ServerResponse, a: Answer | Promise<Answer>): void => {
  if (a instanceof Promise)
    a.then(
      (x) => send(res, x),
      () => send(res, { status: 500, body: '{}' }),
    );
  else send(res, a);
};

/** Writes `chunks` as the client reads them: the next one only once the socket has room. */
async function stream(res: ServerResponse, chunks: AsyncIterable<string>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  for await (const chunk of chunks) {
    if (res.write(chunk)) continue;
    await new Promise<void>((resolve) => {
      const go = () => {
        res.off('drain', go).off('close', go);
        resolve();
      };
      res.on('drain', go).on('close', go);
    });
    if (res.destroyed) return;
  }
  res.end();
}

createServer((req, res) => {
  if (req.url === '/api/pub/leads/getLeadsTimeRangeForTeam?start=0') {
    work
      .teamRange(req.headers.authorization)
      .then((a) => ('status' in a ? send(res, a) : stream(res, a)))
      .catch(() => res.destroy());
    return;
  }
  if (req.url === '/api/pub/leads/getLastLead') return answer(res, work.lastLead(req.headers.authorization));
  if (req.url === '/api/pub/v2/leads/search' && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, { status: 400, body: '{}' });
      }
      answer(res, work.search(req.headers.authorization, body));
    });
    return;
  }
  if (req.url === '/healthz') return send(res, { status: 200, body: '{}' });
  send(res, { status: 404, body: '{}' });
}).listen(Number(portArg), '127.0.0.1');
// An orderly exit on SIGTERM, so `node --cpu-prof` writes its profile (bench/profile.ts).
process.once('SIGTERM', () => process.exit(0));
