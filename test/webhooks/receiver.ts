import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver got it, after its signature was verified. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The sender's port: which connection (and so which process) it came on. */
  remotePort: number;
  // biome-ignore lint/suspicious/noExplicitAny: the envelope's data is checked field by field
  payload: { type: string; timestamp: string; data: any };
}

/**
 * A webhook receiver on loopback, as an integrator would write one: every request's signature is
 * verified with the `standardwebhooks` library against each of `secrets` (all must verify); a
 * request that fails verification is counted in `forged` and answered 400. `answer` picks the
 * status of each verified delivery (default 200).
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly forged: string[] = [];
  secrets: string[];
  answer: (r: Received, nth: number) => number = () => 200;
  /** How long each answer takes (a slow receiver keeps deliveries in flight). */
  delayMs = 0;
  /** The body of every answer. */
  body = 'ok';
  /** Answer with the request's own body instead (a receiver that echoes what it got). */
  echo = false;
  private server: Server;
  port = 0;

  private constructor(secrets: string[]) {
    this.secrets = secrets;
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(secrets: string[] = [], port = 0): Promise<Receiver> {
    const r = new Receiver(secrets);
    await r.listen(port);
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async listen(port = this.port): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops answering: later connections are refused (a receiver that is down). */
  async down(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  /** Ids received, each once. */
  ids(): Set<string> {
    return new Set(this.received.map((r) => r.id));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      try {
        if (this.secrets.length === 0) throw new Error('no secret to verify with');
        let payload: Received['payload'] | undefined;
        for (const s of this.secrets) payload = new Webhook(s).verify(body, headers) as Received['payload'];
        const r: Received = {
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          signature: headers['webhook-signature'],
          body,
          remotePort: req.socket.remotePort ?? 0,
          payload: payload!,
        };
        this.received.push(r);
        const status = this.answer(r, this.received.length);
        const send = () => res.writeHead(status).end(this.echo ? body : this.body);
        if (this.delayMs === 0) send();
        else setTimeout(send, this.delayMs);
      } catch (err) {
        this.forged.push(`${headers['webhook-id']}: ${(err as Error).message}`);
        res.writeHead(400).end('bad signature');
      }
    });
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    await this.down();
  }
}
