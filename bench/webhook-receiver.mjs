// A fast webhook receiver for bench/webhooks.ts, in its own process: answers 204 at once and
// records each webhook-id's arrival and the creation time its body names. `GET /count` reports
// the counts in constant time (what the bench polls while delivery runs, so that polling costs
// neither process much); `GET /stats` adds every latency; `GET /cpu` is this process's CPU time.
import { createServer } from 'node:http';

const seen = new Map();
let duplicates = 0;
let last = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const counts = { unique: seen.size, duplicates, last };
    if (req.url === '/count') res.end(JSON.stringify(counts));
    else if (req.url === '/cpu') res.end(JSON.stringify(process.cpuUsage()));
    else {
      const latencies = [...seen.values()].filter((v) => v.latency !== null).map((v) => v.latency);
      res.end(JSON.stringify({ ...counts, latencies }));
    }
    return;
  }
  if (req.method === 'DELETE') {
    seen.clear();
    duplicates = 0;
    last = 0;
    res.end('{}');
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const id = req.headers['webhook-id'];
    if (seen.has(id)) duplicates++;
    else {
      const created = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).data.createdAt);
      seen.set(id, { at, latency: Number.isFinite(created) ? at - created : null });
      if (at > last) last = at;
    }
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
