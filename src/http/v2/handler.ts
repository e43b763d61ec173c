import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Caller } from '../../directory/directory.js';
import { CursorCodec } from '../../leads/cursor.js';
import type { RateLimiter } from '../../rate-limit/fixed-window.js';
import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store.js';
import { authenticate } from '../auth.js';
import { markUsage } from '../count-usage.js';
import { countAgainstQuota } from '../quota.js';

export const V2_PREFIX = '/api/pub/v2/leads';
export const JSON_TYPE = 'application/json; charset=utf-8';

export interface V2Deps {
  config: Config;
  store: Store;
  rateLimiter: RateLimiter;
  now: () => number;
}

/** What a v2 operation works with: the admitted caller, the settings, the store, and the cursor codec. */
export interface V2Context {
  caller: Caller;
  config: Config;
  store: Store;
  now: number;
  cursors: () => Promise<CursorCodec>;
  /** Aborts as the server begins to close: waiting requests answer, event streams end. */
  closing: AbortSignal;
}

/** A `closing` for routes that never wait. */
const NEVER_CLOSING = new AbortController().signal;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The path's `{leadId}`, in lower case. Something that is not a UUID names no lead: the same 404
 * as a lead that does not exist or that the key may not see.
 */
export function leadIdOf(request: FastifyRequest): string {
  const { leadId } = request.params as { leadId: string };
  if (!UUID.test(leadId)) throw new AppError('not-found', `No lead ${leadId} for this key.`);
  return leadId.toLowerCase();
}

/** An answer streamed as it is made (the audit log's NDJSON export), not one JSON body. */
export class StreamedAnswer {
  constructor(
    readonly type: string,
    readonly body: Readable,
  ) {}
}

export type V2Handler = (ctx: V2Context, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The cursor codec, made once from the store's secret. A failed load (store down) is not kept,
 * so the next request tries again.
 */
export function cursorCodec(store: Store): () => Promise<CursorCodec> {
  let codec: Promise<CursorCodec> | null = null;
  return () => {
    codec ??= store.secret('v2-cursor').then(
      (secret) => new CursorCodec(secret),
      (err: unknown) => {
        codec = null;
        throw err;
      },
    );
    return codec;
  };
}

/** Admits the caller (key, quota; counted as `name` in the usage ledger), runs the operation, answers its JSON with no-store. */
export function v2Route(
  name: string,
  handler: V2Handler,
  deps: V2Deps,
  cursors: () => Promise<CursorCodec>,
  closing: AbortSignal = NEVER_CLOSING,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    // Personal data: no cache may keep a v2 answer.
    reply.header('cache-control', 'no-store');
    const now = deps.now();
    const caller = await authenticate(request, deps.store.keys, now);
    markUsage(request, { keyId: caller.keyId, api: 'v2', operation: name });
    (await countAgainstQuota(reply, deps.rateLimiter, caller))();
    const body = await handler(
      { caller, config: deps.config, store: deps.store, now, cursors, closing },
      request,
      reply,
    );
    if (body instanceof StreamedAnswer) return reply.type(body.type).send(body.body);
    return reply.type(JSON_TYPE).send(JSON.stringify(body));
  };
}
