import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';

/**
 * Receivers that misbehave on purpose (issue 36), each on loopback: what one team's endpoint
 * can do to the service's delivery. `open` counts the requests (or connections) it holds now.
 */
export type HostileKind =
  /** Sends the status line and headers promising 100,000 bytes, one byte, then nothing. */
  | 'headers-then-silence'
  /** Sends the headers, then one byte every 50 ms, never reaching the promised length. */
  | 'trickle'
  /** Reads the request and never answers. */
  | 'no-status'
  /** Accepts the connection and never reads or writes (a half-open peer). */
  | 'half-open'
  /** Sends the headers and part of the answer, then resets the connection. */
  | 'reset-mid-answer';

export class HostileReceiver {
  open = 0;
  /** Requests (or connections) seen in all. */
  seen = 0;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    readonly kind: HostileKind,
    private readonly server: Server,
  ) {}

  static async start(kind: HostileKind): Promise<HostileReceiver> {
    let self: HostileReceiver | null = null;
    const server =
      kind === 'half-open'
        ? createTcpServer((socket) => self!.hold(socket))
        : createHttpServer((req, res) => self!.answer(req, res));
    self = new HostileReceiver(kind, server);
    server.on('connection', (socket: Socket) => {
      self!.sockets.add(socket);
      socket.on('close', () => self!.sockets.delete(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  private hold(socket: Socket): void {
    this.seen++;
    this.open++;
    socket.on('error', () => {});
    socket.on('close', () => this.open--);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.seen++;
    this.open++;
    res.on('close', () => this.open--);
    req.resume();
    if (this.kind === 'no-status') return;
    res.writeHead(200, { 'content-length': '100000' });
    res.write('x');
    if (this.kind === 'trickle') {
      const timer = setInterval(() => res.write('x'), 50);
      this.timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        this.timers.delete(timer);
      });
    } else if (this.kind === 'reset-mid-answer') {
      setTimeout(() => req.socket.destroy(), 20);
    }
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    for (const s of this.sockets) s.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** `p`, or a failure naming `what` when it has not settled within `ms`. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
