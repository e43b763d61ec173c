import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Caller } from '../../directory/directory.js';
import type { RateLimiter } from '../../rate-limit/fixed-window.js';
import {
  activeBrownout,
  brownoutError,
  brownoutRetryAfter,
  brownoutWarning,
  frozenError,
  isFrozenOut,
  isSunset,
  SEARCH_SUCCESSOR,
  type SuccessorRequest,
  scheduledBrownout,
  successorRequest,
  sunsetError,
} from '../../retirement/gates.js';
import { AppError } from '../../shared/errors.js';
import type { Store } from '../../store.js';
import { authenticate } from '../auth.js';
import { countedRange } from '../bulk-read.js';
import { markUsage } from '../count-usage.js';
import { noneMatch } from '../etag.js';
import { consumeQuota, refuseOverQuota } from '../quota.js';
import { type RequestHooks, routeOf } from '../request-hooks.js';
import { routeSchema } from '../route-schema.js';
import type { BrownoutCache } from './brownout-cache.js';
import { deprecationHeaders, isV1Route, V1_PREFIX } from './deprecation.js';
import { getLastLead } from './get-last-lead.js';
import { getLastLeadSubTeam } from './get-last-lead-sub-team.js';
import { getLastLeadTeam } from './get-last-lead-team.js';
import { getLeadsTimeRange } from './get-leads-time-range.js';
import { getLeadsTimeRangeForTeam } from './get-leads-time-range-for-team.js';
import { lastLeadAnswer } from './last-lead-answer.js';
import type { V1Operation } from './operation.js';
import { v1ArrayStream } from './stream.js';

export const V1_OPERATIONS: V1Operation[] = [
  getLastLead,
  getLastLeadTeam,
  getLastLeadSubTeam,
  getLeadsTimeRange,
  getLeadsTimeRangeForTeam,
];

export interface V1Deps {
  config: Config;
  store: Store;
  rateLimiter: RateLimiter;
  now: () => number;
  brownouts: BrownoutCache;
  /** Where the app's request-wide gates are collected: v1's is one of them. */
  hooks: RequestHooks;
}

/** What a v1 answer reads besides the request: the deps and the texts made once. */
interface V1Context extends V1Deps {
  /** The migration guide's address, named by every retirement refusal. */
  guide: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE', 'QUERY'] as const;

/** The five v1 operations (docs/v1-reference.md: Operations, C1–C6). */
export async function v1Routes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const signals = deprecationHeaders(deps.config);
  const guide = `${deps.config.publicUrl}/docs/v1-reference`;
  const v1: V1Context = { ...deps, guide: `${deps.config.publicUrl}/docs/v1-migration` };
  // Every response under the v1 prefix carries the deprecation signals, errors and 404s included.
  deps.hooks.gate((request, reply) => {
    if (!isV1Route(request)) return;
    reply.headers(signals);
    // After the sunset every v1 call is gone, whatever its path, method or key (C7).
    if (isSunset(deps.config.v1, deps.now())) return refuseAfterSunset(request, v1);
  });

  for (const op of V1_OPERATIONS) {
    const url = `${V1_PREFIX}${op.name}`;
    app.route({
      method: ['GET', 'HEAD'],
      url,
      schema: routeSchema(op.name),
      handler: (request, reply) => handle(op, request, reply, v1),
    });
    // Refused in onRequest, before any body is read or parsed (C5: 405 with Allow).
    app.route({
      method: [...OTHER_METHODS],
      url,
      onRequest: async (_request, reply) => {
        reply.header('allow', 'GET, HEAD');
        throw new AppError('method-not-allowed', `${op.name} answers GET and HEAD only.`);
      },
      handler: async () => {
        throw new AppError('method-not-allowed', `${op.name} answers GET and HEAD only.`);
      },
    });
  }
  // Any other path the router files under the prefix is a v1 404 — with the v1 signals, and 410
  // after the sunset — whichever way it was spelled: the decision follows the matched route.
  app.all(`${V1_PREFIX}*`, async () => {
    throw new AppError('not-found', `No v1 operation at this path; the five are listed at ${guide}.`);
  });
}

/** Counts the call for its key when it has a valid one (the report shows who still tries), then 410. */
async function refuseAfterSunset(request: FastifyRequest, deps: V1Context): Promise<never> {
  const name = routeOf(request)?.slice(V1_PREFIX.length);
  const operation = V1_OPERATIONS.some((op) => op.name === name) ? (name as string) : 'other';
  let successor: SuccessorRequest = SEARCH_SUCCESSOR;
  try {
    const caller = await authenticate(request, deps.store.keys, deps.now());
    markUsage(request, { keyId: caller.keyId, api: 'v1', operation });
    if (operation !== 'other')
      successor = successorRequest(operation, caller, request.query as Record<string, unknown>);
  } catch {
    // No valid key: still gone, just not counted for anyone.
  }
  throw sunsetError(successor, deps.guide);
}

async function handle(
  op: V1Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: V1Context,
): Promise<FastifyReply> {
  const now = deps.now();
  const caller = await authenticate(request, deps.store.keys, now);
  markUsage(request, { keyId: caller.keyId, api: 'v1', operation: op.name });
  const quota = await consumeQuota(reply, deps.rateLimiter, caller);
  // Retirement (C7) answers before the quota does: a brownout or a frozen-out key is never a 429.
  const brownouts = deps.brownouts.fresh() ?? (await deps.brownouts.current());
  if (brownouts.length > 0) {
    const ahead = scheduledBrownout(brownouts, caller.keyId, now, deps.config.v1BrownoutNoticeMs);
    if (ahead !== null) reply.header('warning', brownoutWarning(ahead));
    const brownout = activeBrownout(brownouts, caller.keyId, now);
    if (brownout !== null) {
      reply.header('retry-after', String(brownoutRetryAfter(brownout, now)));
      throw brownoutError(brownout, successorOf(op, request, caller), deps.guide);
    }
  }
  if (isFrozenOut(deps.config.v1, caller)) {
    throw frozenError(successorOf(op, request, caller), deps.guide, caller.keyId, deps.config.v1.frozenAt);
  }
  refuseOverQuota(reply, quota);
  const result = await op.run({ caller, query: request.query as Record<string, unknown>, store: deps.store });
  reply.header('cache-control', 'private, no-cache').type(JSON_TYPE);
  if (result.kind === 'last') {
    const { body, etag } = lastLeadAnswer(result.lead);
    reply.header('etag', etag);
    if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.send(body);
  }
  if (request.method === 'HEAD') return reply.send();
  const pieces = countedRange(deps.store.leads.v1Range(result.scope, result.range), deps.store, {
    caller,
    operation: op.name,
    threshold: deps.config.auditBulkRead,
    now: deps.now,
    log: request.log,
  });
  return reply.send(await v1ArrayStream(pieces));
}

/** The v2 request that replaces this call (the retirement refusals name it). */
function successorOf(op: V1Operation, request: FastifyRequest, caller: Caller): SuccessorRequest {
  return successorRequest(op.name, caller, request.query as Record<string, unknown>);
}
