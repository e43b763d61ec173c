import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AddressPolicy } from '../domain/webhook-address.js';
import { addressProblem, hostOf } from '../domain/webhook-address.js';
import {
  ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  type ClaimedDelivery,
  READ_ANSWER_BYTES,
  RECORDED_ANSWER_BYTES,
} from '../domain/webhook-delivery.js';

/**
 * One attempt of one delivery over HTTP (issue 13 §2, §6): the body signed per Standard Webhooks
 * by the `standardwebhooks` library with every secret that signs now; connections only to
 * addresses the policy allows — checked on what the resolver returns and again on the socket's
 * remote address —; no redirects followed (node:http never follows); the answer read up to a cap.
 */

export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/** Signers kept per secret: `new Webhook(secret)` decodes the secret, once per secret is enough. */
const signers = new Map<string, Webhook>();
const SIGNERS_KEPT = 1_000;

function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (w === undefined) {
    w = new Webhook(secret);
    if (signers.size >= SIGNERS_KEPT) signers.clear();
    signers.set(secret, w);
  }
  return w;
}

/** The `webhook-signature` header: one `v1,…` signature per secret, space-separated. */
export function signature(secrets: string[], id: string, at: Date, body: string): string {
  return secrets.map((s) => signer(s).sign(id, at, body)).join(' ');
}

export class Sender {
  private readonly agents;
  private readonly lookup: LookupFunction;

  constructor(
    private readonly policy: AddressPolicy,
    maxSockets: number,
    resolve: typeof dnsLookup = dnsLookup,
  ) {
    const options = { keepAlive: true, maxSockets, scheduling: 'lifo' as const };
    this.agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
    // What the connection will use: only the allowed addresses of the answer (DNS rebinding).
    this.lookup = (host, opts, done) => {
      resolve(host, { ...opts, all: true }, (err, found) => {
        if (err) return done(err, '', 4);
        const allowed = (found as LookupAddress[]).filter((a) => addressProblem(a.address, policy) === null);
        if (allowed.length === 0) {
          const first = (found as LookupAddress[])[0]?.address ?? host;
          return done(new RefusedAddress(addressProblem(first, policy) ?? `${host} has no address`), '', 4);
        }
        if (opts.all) return (done as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
        return done(null, allowed[0]!.address, allowed[0]!.family);
      });
    };
  }

  /**
   * `at`: when the attempt counts as made (the loop's clock). The signature's timestamp is this
   * machine's wall clock, which receivers compare with theirs (Standard Webhooks: ±5 minutes).
   */
  async send(d: ClaimedDelivery, secrets: string[], at: number = Date.now()): Promise<AttemptResult> {
    const signedAt = Date.now();
    const started = performance.now();
    const result = (status: number | null, answer: string): AttemptResult => ({
      at,
      status,
      latencyMs: Math.round(performance.now() - started),
      answer: answer.slice(0, RECORDED_ANSWER_BYTES),
    });
    const url = new URL(d.url);
    const literal = hostOf(url);
    if (isIP(literal) !== 0) {
      const refused = addressProblem(literal, this.policy);
      if (refused !== null) return result(null, `refused: ${refused}`);
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'leadline-webhooks',
      'webhook-id': d.eventId,
      'webhook-timestamp': String(Math.floor(signedAt / 1000)),
      'webhook-signature': signature(secrets, d.eventId, new Date(signedAt), d.payload),
    };
    try {
      const { status, answer } = await this.post(url, headers, d.payload);
      return result(status, answer);
    } catch (err) {
      const e = err as Error;
      return result(null, e instanceof RefusedAddress ? `refused: ${e.message}` : `no answer: ${e.message}`);
    }
  }

  private post(
    url: URL,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; answer: string }> {
    const client = url.protocol === 'https:' ? https : http;
    const agent = this.agents[url.protocol as 'http:' | 'https:'];
    return new Promise((resolve, reject) => {
      const req = client.request(url, { method: 'POST', headers, agent, lookup: this.lookup });
      const deadline = setTimeout(
        () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`)),
        ATTEMPT_TIMEOUT_MS,
      );
      req.on('socket', (socket) => {
        const check = () => {
          const refused = addressProblem(socket.remoteAddress ?? '', this.policy);
          if (refused !== null) req.destroy(new RefusedAddress(refused));
        };
        if (socket.remoteAddress !== undefined && !socket.connecting) check();
        else socket.once('connect', check);
      });
      req.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      req.on('response', (res) => {
        // The status is the verdict; the answer is read up to the cap for the record.
        clearTimeout(deadline);
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () =>
          resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(chunks).toString('utf8') });
        res.on('data', (chunk: Buffer) => {
          if (size < READ_ANSWER_BYTES) chunks.push(chunk.subarray(0, READ_ANSWER_BYTES - size));
          size += chunk.length;
          if (size >= READ_ANSWER_BYTES) {
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', finish);
        setTimeout(() => res.destroy(), ATTEMPT_TIMEOUT_MS).unref();
      });
      req.end(body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
