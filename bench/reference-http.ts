import { createServer } from 'node:http';

/** Reference point: bare node:http answering a constant ~1 KB JSON array. */
const lead = {
  id: '1001',
  epoch: 1767225600000,
  time: '2026-01-01 01:00:00',
  userId: 4822,
  userEmail: 'ana@acme.test',
  userPid: '7891',
  isLead: true,
  apptoapp: false,
  isManual: false,
  name: 'Ana María Ruiz Fernández',
  company: 'Acme Industrial Solutions GmbH',
  jobTitle: 'Head of Procurement',
  email: 'ana.ruiz@acme-industrial.test',
  number: '4930123456789',
  address: 'Friedrichstraße 123, 10117 Berlin, Germany',
  website: 'https://acme-industrial.test',
  linkedIn: 'https://linkedin.test/in/ana-ruiz',
  note: 'Met at the fair, interested in the enterprise plan; follow up in two weeks. Prefers e-mail.',
  location: 'Berlin, Germany',
  views: '12',
  pops: '3',
};
const body = JSON.stringify([lead]);
const port = Number(process.argv[2] ?? 3999);
/**
 * `--v1-headers`: also the headers the v1 rules put on a getLastLead answer (as `curl -i` shows
 * them from `leadline serve`), with a request id that changes per answer — what those headers
 * alone cost a server that does nothing else (bench/header-cost.ts).
 */
const v1Headers = process.argv[3] === '--v1-headers';
let answers = 0;
createServer((_req, res) => {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (v1Headers) {
    headers['x-request-id'] = `b206e501-4e7e-4104-a0e2-${String(answers++ % 1e12).padStart(12, '0')}`;
    headers['x-content-type-options'] = 'nosniff';
    headers.deprecation = '@1767225600';
    headers.link =
      '<http://localhost:3999/docs/v1-migration>; rel="deprecation"; type="text/html", <http://localhost:3999/docs/v2#search-leads>; rel="successor-version"';
    headers['ratelimit-policy'] = '"default";q=600;w=60';
    headers.ratelimit = '"default";r=599;t=52';
    headers['cache-control'] = 'private, no-cache';
    headers.etag = '"0UGyyVH7ViAj97dsFdv8w0SK5gs"';
  }
  res.writeHead(200, headers);
  res.end(body);
}).listen(port, '127.0.0.1');
