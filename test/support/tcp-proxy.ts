import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server, which a test can cut (every connection dropped, new
 * ones refused) and restore on the same port: an outage as the service sees it.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address === 'object' && address !== null) this.port = address.port;
    this.server = server;
  }

  /** Drops every open connection and stops listening. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps every connection open but passes nothing more either way: a server that stopped answering. */
  freeze(): void {
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  async restore(): Promise<void> {
    await this.start();
  }
}
