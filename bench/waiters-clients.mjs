/**
 * A worker thread of bench/waiters.ts: `sse` Server-Sent Events clients and `poll` long-poll
 * clients (`wait=30`, re-issued at once with the answer's pollCursor) of
 * GET /api/pub/v2/leads/changes, all starting at `cursor`. A client that loses its connection
 * (the server killed) comes back after a jittered backoff: an SSE client with `Last-Event-ID`
 * (the id of the last block that carried one, bookmarks included), a long-poller with its last
 * pollCursor. Each client keeps the leads it received, in order, and when; the main thread asks
 * by message ({ id, cmd }) and gets { id, result }. Plain JavaScript so it needs no loader.
 */
import { readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

// The clients are the server's load, not the probes': at the lowest priority (Linux: per thread)
// this thread takes what the probing main thread, on the same CPU, leaves — so a probe's time is
// the server's, not its wait behind ten thousand clients' parsing.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), constants.priority.PRIORITY_LOW);
} catch {
  // not Linux: the same priority as the probes
}

const { base, key, sse, poll, cursor } = workerData;
const PATH = '/api/pub/v2/leads/changes';
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 100_000 });
const now = () => performance.timeOrigin + performance.now();
let stopping = false;

class Client {
  constructor(kind) {
    this.kind = kind;
    this.cursor = cursor;
    this.seen = [];
    this.at = new Map();
    this.repeats = 0;
    this.ready = false;
    this.failures = 0;
    this.reconnects = 0;
    this.req = null;
  }
  got(leadId) {
    if (this.at.has(leadId)) {
      this.repeats++;
      return;
    }
    this.at.set(leadId, now());
    this.seen.push(leadId);
  }
  /** Called once per lost attempt: back again after a jittered, growing pause. */
  retry() {
    this.req = null;
    if (stopping) return;
    this.failures++;
    this.reconnects++;
    const pause = Math.min(4000, 100 * 2 ** Math.min(this.failures, 6)) * (0.5 + Math.random());
    setTimeout(() => this.open(), pause);
  }
  open() {
    if (stopping) return;
    if (this.kind === 'sse') openSse(this);
    else openPoll(this);
  }
}

function once(fn) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

function openSse(c) {
  const headers = { authorization: key, accept: 'text/event-stream' };
  if (c.cursor !== null) headers['last-event-id'] = c.cursor;
  const lost = once(() => c.retry());
  const req = request(`${base}${PATH}`, { agent, headers }, (res) => {
    if (res.statusCode !== 200) {
      res.resume();
      res.on('end', lost);
      return;
    }
    c.ready = true;
    c.failures = 0;
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id;
        let event;
        let data;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (event === 'lead') c.got(JSON.parse(data).leadId);
        if (id !== undefined) c.cursor = id;
      }
    });
    res.on('end', lost);
    res.on('error', lost);
    res.on('close', lost);
  });
  req.on('error', lost);
  req.end();
  c.req = req;
}

function openPoll(c) {
  const q = `?wait=30&limit=100${c.cursor === null ? '' : `&cursor=${encodeURIComponent(c.cursor)}`}`;
  const lost = once(() => c.retry());
  const req = request(`${base}${PATH}${q}`, { agent, headers: { authorization: key } }, (res) => {
    const parts = [];
    res.on('data', (d) => parts.push(d));
    res.on('error', lost);
    res.on('aborted', lost);
    res.on('end', () => {
      if (res.statusCode !== 200) return lost();
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        return lost();
      }
      for (const lead of body.data.leads) c.got(lead.leadId);
      c.cursor = body.data.pollCursor;
      c.failures = 0;
      c.req = null;
      setImmediate(() => c.open());
    });
  });
  req.on('error', lost);
  // Written to the socket: the server has the request (it holds it until a lead or 30 s).
  req.on('finish', () => {
    c.ready = true;
  });
  req.end();
  c.req = req;
}

const clients = [
  ...Array.from({ length: sse }, () => new Client('sse')),
  ...Array.from({ length: poll }, () => new Client('poll')),
];

const commands = {
  /** Opens every client, `batch` at a time, each batch once the one before is ready. */
  async open({ batch }) {
    for (let i = 0; i < clients.length; i += batch) {
      const some = clients.slice(i, i + batch);
      for (const c of some) c.open();
      const t0 = Date.now();
      while (!some.every((c) => c.ready)) {
        if (Date.now() - t0 > 60_000) throw new Error('clients not connected within 60 s');
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    return clients.length;
  },
  /** How many clients have received `leadId`. */
  count({ leadId }) {
    let n = 0;
    for (const c of clients) if (c.at.has(leadId)) n++;
    return n;
  },
  /** The clients without `leadId`, by kind and state (what a failed fan-out reports). */
  lacking({ leadId }) {
    const out = {};
    for (const c of clients) {
      if (c.at.has(leadId)) continue;
      const state = `${c.kind} ${c.req === null ? 'no request' : 'request open'}, ${c.seen.length} leads, ${c.reconnects} reconnects`;
      out[state] = (out[state] ?? 0) + 1;
    }
    return out;
  },
  /** Receipt times of `leadId` (absolute ms), by kind. */
  times({ leadId }) {
    const out = { sse: [], poll: [] };
    for (const c of clients) {
      const t = c.at.get(leadId);
      if (t !== undefined) out[c.kind].push(t);
    }
    return out;
  },
  /** Every client against `leadIds` (the leads created since the clients' start, in order). */
  verify({ leadIds }) {
    const want = leadIds.join(',');
    let exact = 0;
    let missing = 0;
    let repeated = 0;
    let reordered = 0;
    let reconnects = 0;
    for (const c of clients) {
      reconnects += c.reconnects;
      repeated += c.repeats;
      const got = new Set(c.seen);
      const lacks = leadIds.filter((id) => !got.has(id)).length;
      missing += lacks;
      const extra = c.seen.filter((id) => !leadIds.includes(id)).length;
      if (c.seen.join(',') === want && c.repeats === 0) exact++;
      else if (lacks === 0 && extra === 0 && c.repeats === 0) reordered++;
    }
    return { clients: clients.length, exact, missing, repeated, reordered, reconnects };
  },
  stop() {
    stopping = true;
    for (const c of clients) c.req?.destroy();
    agent.destroy();
    return true;
  },
};

parentPort.on('message', async ({ id, cmd, ...args }) => {
  try {
    parentPort.postMessage({ id, result: await commands[cmd](args) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.stack ?? err) });
  }
});
