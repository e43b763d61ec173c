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
createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}).listen(port, '127.0.0.1');
