import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { storableExcerpt } from '../shared/storable-text.js';
import type { AddressPolicy } from '../webhooks/address.js';
import { addressProblem, hostOf, urlProblem } from '../webhooks/address.js';
import {
  ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  type ClaimedDelivery,
  READ_ANSWER_BYTES,
  RECORDED_ANSWER_BYTES,
} from '../webhooks/delivery.js';

/**
 * One attempt of one delivery over HTTP (docs/webhooks.md "Delivery", "Where webhooks may go"): the body signed per Standard Webhooks
 * by the `standardwebhooks` library with every secret that signs now; connections only to
 * addresses the policy allows — checked on what the resolver returns and again on the socket's
 * remote address —; no redirects followed (node:http never follows); the answer read up to a cap.
 *
 * An attempt ends within its deadline whatever the receiver does (docs/reliability.md R20): one timer covers the
 * connection, the status line and the whole answer, and settles the attempt itself instead of
 * waiting for the socket's events — a response destroyed without an error emits neither `end`
 * nor `error` on Node 20, which once left an attempt, and its slot in the loop, unsettled.
 */

export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/** The attempt's deadline passed, or the answer ended early: words for the record, as they are. */
class AttemptCut extends Error {
  override name = 'AttemptCut';
}

/** TLS failures are named by their code only: the owner needs that much, nobody needs more. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_/;

/**
 * Why an attempt got no answer, in words that tell an endpoint's owner what to fix — refused,
 * timed out, a certificate — and nothing more: no address, port or library message, so the
 * record cannot be used to map a network through the service.
 */
export function noAnswerWords(err: Error): string {
  if (err instanceof RefusedAddress) return `refused: ${err.message}`;
  if (err instanceof AttemptCut) return err.message;
  const code = String((err as NodeJS.ErrnoException).code ?? '');
  if (code === 'ECONNREFUSED') return 'no answer: connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'no answer: connection reset';
  if (code === 'ETIMEDOUT') return 'no answer: connection timed out';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') {
    return 'no answer: the host name does not resolve';
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'no answer: host unreachable';
  if (TLS_CODE.test(code)) return `no answer: TLS failed (${code})`;
  return 'no answer: connection failed';
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
    /** Connection, status line and answer together: ATTEMPT_TIMEOUT_MS (tests shorten it). */
    private readonly deadlineMs: number = ATTEMPT_TIMEOUT_MS,
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
   * Never rejects; settles within the deadline.
   */
  async send(d: ClaimedDelivery, secrets: string[], at: number = Date.now()): Promise<AttemptResult> {
    const signedAt = Date.now();
    const started = performance.now();
    const result = (status: number | null, answer: string): AttemptResult => ({
      at,
      status,
      latencyMs: Math.round(performance.now() - started),
      answer: storableExcerpt(answer, RECORDED_ANSWER_BYTES),
    });
    // The rules of registration hold on every attempt: an endpoint saved while a setting allowed
    // more (http, a private address) is not posted to once the setting no longer does.
    const refusedUrl = urlProblem(d.url, this.policy);
    if (refusedUrl !== null) return result(null, `refused: the URL ${refusedUrl}`);
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
      return result(null, noAnswerWords(err as Error));
    }
  }

  /**
   * The status and the answer's first READ_ANSWER_BYTES, once the answer has ended (or reached
   * that cap); rejects when the deadline passes first, or the answer ends early.
   */
  private post(
    url: URL,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; answer: string }> {
    const client = url.protocol === 'https:' ? https : http;
    const agent = this.agents[url.protocol as 'http:' | 'https:'];
    const seconds = this.deadlineMs / 1000;
    return new Promise((resolve, reject) => {
      let settled = false;
      let status: number | null = null;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        outcome();
      };
      const req = client.request(url, { method: 'POST', headers, agent, lookup: this.lookup });
      const deadline = setTimeout(() => {
        const cut = new AttemptCut(
          status === null
            ? `no answer: none within ${seconds} s`
            : `no answer: status ${status}, but the answer did not end within ${seconds} s`,
        );
        settle(() => reject(cut));
        req.destroy(cut);
      }, this.deadlineMs);
      req.on('socket', (socket) => {
        const check = () => {
          const refused = addressProblem(socket.remoteAddress ?? '', this.policy);
          if (refused !== null) req.destroy(new RefusedAddress(refused));
        };
        if (socket.remoteAddress !== undefined && !socket.connecting) check();
        else socket.once('connect', check);
      });
      req.on('error', (err) => settle(() => reject(err)));
      req.on('response', (res) => {
        status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const answered = () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          settle(() => resolve({ status: status!, answer }));
        };
        res.on('data', (chunk: Buffer) => {
          if (size < READ_ANSWER_BYTES) chunks.push(chunk.subarray(0, READ_ANSWER_BYTES - size));
          size += chunk.length;
          if (size >= READ_ANSWER_BYTES) {
            answered();
            res.destroy();
          }
        });
        res.on('end', answered);
        // Closed before its end (reset, or destroyed): not a whole answer.
        res.on('close', () =>
          settle(() =>
            reject(
              new AttemptCut(
                `no answer: status ${status}, but the connection closed before the answer ended`,
              ),
            ),
          ),
        );
      });
      req.end(body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}
