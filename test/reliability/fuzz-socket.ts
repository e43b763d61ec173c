import { connect } from 'node:net';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { requestArbitrary } from './fuzz.js';

/**
 * R2 over a real socket: the generated requests written as raw HTTP/1.1 bytes — so Node's own
 * parser sees them — with invalid UTF-8 spliced into the request line and headers, wrong
 * Content-Length, requests cut off midway, and plain garbage.
 */
export interface RawCase {
  bytes: Buffer;
  /** Whether the request is whole (an answer is owed) or cut short (closing without one is fine). */
  whole: boolean;
  head: boolean;
}

function serialize(req: InjectOptions, junk: number[], where: number, keepAlive: boolean): Buffer {
  const body =
    req.payload === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(req.payload)
        ? req.payload
        : Buffer.from(String(req.payload));
  const url = Buffer.from(String(req.url), 'latin1');
  const lines = [`Host: 127.0.0.1`, `Connection: ${keepAlive ? 'keep-alive' : 'close'}`];
  for (const [k, v] of Object.entries(req.headers ?? {}))
    lines.push(`${k}: ${String(v).replace(/[\r\n]/g, '')}`);
  if (body.length > 0) lines.push(`Content-Length: ${body.length}`);
  const junkBytes = Buffer.from(junk);
  // Invalid UTF-8 (0x80–0xff) either in the URL or in a header value, or nowhere.
  const urlPart = where === 1 ? Buffer.concat([url, junkBytes]) : url;
  const headerPart = Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
  const junkHeader =
    where === 2 ? Buffer.concat([Buffer.from('X-Junk: '), junkBytes, Buffer.from('\r\n')]) : Buffer.alloc(0);
  return Buffer.concat([
    Buffer.from(`${req.method} `),
    urlPart,
    Buffer.from(' HTTP/1.1\r\n'),
    headerPart,
    junkHeader,
    Buffer.from('\r\n'),
    body,
  ]);
}

export function rawCaseArbitrary(validKey: string): fc.Arbitrary<RawCase> {
  const junk = fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 6 });
  const whole = fc
    .tuple(requestArbitrary(validKey), junk, fc.integer({ min: 0, max: 2 }))
    .map(([req, j, where]) => ({
      bytes: serialize(req, j, where, false),
      whole: true,
      head: req.method === 'HEAD',
    }));
  const truncated = fc
    .tuple(
      requestArbitrary(validKey),
      junk,
      fc.integer({ min: 0, max: 2 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
    )
    .map(([req, j, where, cut]) => {
      const bytes = serialize(req, j, where, false);
      return {
        bytes: bytes.subarray(0, Math.floor(bytes.length * cut)),
        whole: false,
        head: req.method === 'HEAD',
      };
    });
  const garbage = fc
    .uint8Array({ minLength: 1, maxLength: 2000 })
    .map((a) => ({ bytes: Buffer.from(a), whole: false, head: false }));
  const oddFraming = fc
    .constantFrom(
      'POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\n{}{}{}',
      'POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n',
      'POST /api/pub/v2/leads/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\nConnection: close\r\n\r\n0\r\n\r\n',
      'GET /api/pub/leads/getLastLead HTTP/1.0\r\n\r\n',
      'GET /api/pub/leads/getLastLead HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /api/pub/leads/getLastLead HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n b\r\nConnection: close\r\n\r\n',
      'GET  /api/pub/leads/getLastLead  HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /api/pub/leads/getLastLead HTTP/1.1\nHost: x\nConnection: close\n\n',
      'GET http://evil.test/api/pub/leads/getLastLead HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /api/pub/leads/getLastLead HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings, close\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    )
    .map((s) => ({
      bytes: Buffer.from(s),
      // Node closes CONNECT, Upgrade and HTTP/2 prefaces without an answer when no handler takes them.
      whole: !/^(PRI|CONNECT)|Upgrade:|HTTP\/1\.0/.test(s),
      head: false,
    }));
  return fc.oneof(
    { weight: 6, arbitrary: whole },
    { weight: 2, arbitrary: truncated },
    { weight: 1, arbitrary: garbage },
    { weight: 1, arbitrary: oddFraming },
  );
}

export interface RawAnswer {
  status: number | null;
  contentType: string | null;
  body: string;
  closedWithoutAnswer: boolean;
  timedOut: boolean;
}

/**
 * Writes `bytes` and reads until the server closes (or `ms` pass). A request cut short is
 * followed by a half-close, so the server sees the end of it; a whole one is not (the request
 * says `Connection: close`): a half-closing client may lose the answer of a route that answers
 * asynchronously, which is Node's behaviour, not the service's (docs/reliability.md, R2).
 */
export function sendRaw(port: number, bytes: Buffer, ms = 15_000, endAfterWrite = true): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let timedOut = false;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes);
      if (endAfterWrite) socket.end();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, ms);
    socket.on('data', (d) => chunks.push(d));
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const ct = /\r\ncontent-type: ([^\r\n]*)/i.exec(head);
      resolve({
        status: m?.[1] === undefined ? null : Number(m[1]),
        contentType: ct?.[1] ?? null,
        body: rest.join('\r\n\r\n'),
        closedWithoutAnswer: m === null,
        timedOut,
      });
    };
    socket.on('close', finish);
    socket.on('error', () => {});
  });
}
