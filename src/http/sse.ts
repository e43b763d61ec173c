import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Server-Sent Events (the WHATWG HTML standard, "Server-sent events"), the building block of the
 * waiting feeds (docs/v2.md "Waiting for changes"): `/leads/changes` streams with it today and
 * `/events` will. An event is `id:` (the cursor after it: what the client sends back as
 * `Last-Event-ID` when it reconnects), `event:` and one `data:` line of JSON; a comment line
 * `: heartbeat` goes out every `heartbeatMs` so a proxy's idle timeout never closes a quiet
 * stream; a `bookmark` event carries only a new cursor, so a reader whose filter let nothing
 * through still advances. The body is a stream handed to Fastify (not a hijacked socket), so
 * the request is logged and counted like any other; nothing in the app buffers it (no
 * compression, ETags only on v1's string bodies, no response serialiser on v2).
 */
export const EVENT_STREAM = 'text/event-stream; charset=utf-8';
/**
 * How long an EventSource waits before reconnecting after the stream ends (the `retry:` field):
 * RETRY_MS plus up to RETRY_SPREAD_MS, drawn per stream, so the streams a restart drops do not all
 * come back in the same instant (ten thousand at once overflowed the listen queue, bench/RESULTS.md
 * "Waiting clients").
 */
export const RETRY_MS = 2000;
export const RETRY_SPREAD_MS = 3000;

/** Whether the request asks for an event stream (`Accept: text/event-stream`, as EventSource sends). */
export function wantsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return request.method === 'GET' && accept !== undefined && /(^|,)\s*text\/event-stream\b/i.test(accept);
}

/** The resume point an EventSource sends on reconnection (`Last-Event-ID`), if any. */
export function lastEventId(request: FastifyRequest): string | undefined {
  const id = request.headers['last-event-id'];
  const value = Array.isArray(id) ? id[0] : id;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The requests joined to a server's `closing`, by signal: one listener on it, however many
 * requests wait. Not a listener per request: an EventTarget's add and remove walk its list of
 * listeners, and with ten thousand waiters that walk was most of the server's time
 * (bench/RESULTS.md "Waiting clients").
 */
const joined = new WeakMap<AbortSignal, Set<AbortController>>();

function joinedTo(closing: AbortSignal): Set<AbortController> {
  let requests = joined.get(closing);
  if (requests === undefined) {
    const all = new Set<AbortController>();
    closing.addEventListener(
      'abort',
      () => {
        for (const gone of all) gone.abort();
        all.clear();
      },
      { once: true },
    );
    joined.set(closing, all);
    requests = all;
  }
  return requests;
}

/**
 * Aborts when the client goes away before the answer ends (a closed tab, a dropped
 * connection), or when `closing` aborts (the server shuts down): a waiter is freed at once.
 */
export function requestGone(reply: FastifyReply, closing: AbortSignal): AbortSignal {
  const gone = new AbortController();
  if (closing.aborted) {
    gone.abort();
    return gone.signal;
  }
  // Not AbortSignal.any: the server's `closing` lives as long as the app, and every request
  // joined to it must be let go when the request ends, not kept by it.
  const requests = joinedTo(closing);
  requests.add(gone);
  const res = reply.raw;
  res.once('close', () => {
    requests.delete(gone);
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export class SseStream {
  readonly body = new PassThrough();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private ended = false;

  constructor(
    heartbeatMs: number,
    private readonly gone: AbortSignal,
  ) {
    this.body.write(`retry: ${RETRY_MS + Math.floor(Math.random() * RETRY_SPREAD_MS)}\n\n`);
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), heartbeatMs);
    gone.addEventListener('abort', () => this.end(), { once: true });
  }

  /** Whether the stream is still worth writing to (the client is there, the server not closing). */
  get open(): boolean {
    return !this.ended && !this.gone.aborted;
  }

  /** Writes one event; resolves once the client has taken it in (backpressure), or at once when gone. */
  send(e: SseEvent): Promise<void> {
    return this.write(frame(e));
  }

  /** Writes one event already framed (`frame`): what many streams send alike is framed once. */
  sendFrame(text: string): Promise<void> {
    return this.write(text);
  }

  /** An event holding only a new resume point: the reader's Last-Event-ID moves on. */
  bookmark(cursor: string): Promise<void> {
    return this.send({ id: cursor, event: 'bookmark', data: JSON.stringify({ cursor }) });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.body.end();
  }

  private write(text: string): Promise<void> {
    if (this.ended || this.body.writableEnded) return Promise.resolve();
    if (this.body.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.body.off('drain', done);
        this.gone.removeEventListener('abort', done);
        resolve();
      };
      this.body.once('drain', done);
      this.gone.addEventListener('abort', done, { once: true });
    });
  }
}

/** One event as it goes on the wire, blank line included. */
export function frame(e: SseEvent): string {
  let text = '';
  if (e.id !== undefined) text += `id: ${oneLine(e.id)}\n`;
  if (e.event !== undefined) text += `event: ${oneLine(e.event)}\n`;
  for (const line of e.data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** An id or event name never spans lines (a newline would end the field). */
function oneLine(value: string): string {
  return value.replace(/[\r\n]/g, '');
}
