import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Api, UsageLedger } from '../retirement/usage.js';
import type { RequestHooks } from './request-hooks.js';

/** What a request is counted as in the usage ledger, once its key is known. */
export interface UsageMark {
  keyId: number;
  api: Api;
  operation: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    usage: UsageMark | null;
  }
}

export function markUsage(request: FastifyRequest, mark: UsageMark): void {
  request.usage = mark;
}

/**
 * Counts every answered request whose key was known — refusals included, with their status —
 * in memory, and writes the ledger on an interval and when the app closes (shutdown).
 */
export function countUsage(
  app: FastifyInstance,
  hooks: RequestHooks,
  ledger: UsageLedger,
  everyMs: number,
  now: () => number,
): void {
  app.decorateRequest('usage', null);
  hooks.observe((request, reply) => {
    const u = request.usage;
    // undefined on requests Fastify answers before decorating them (framework errors).
    if (u === null || u === undefined) return;
    const agent = request.headers['user-agent'];
    ledger.count(
      u.keyId,
      u.api,
      u.operation,
      reply.statusCode,
      now(),
      typeof agent === 'string' ? agent : null,
    );
  });
  const flush = () =>
    ledger.flush().catch((err: unknown) => {
      // Counts stay in memory and go out with the next flush.
      app.log.warn({ err: { message: (err as Error).message } }, 'usage ledger not written; retrying');
    });
  const timer = setInterval(flush, everyMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await flush();
  });
}
