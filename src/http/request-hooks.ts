import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched route's pattern once read (`routeOf`); undefined: not read yet. */
    routeUrl: string | undefined;
  }
}

/**
 * A check every request passes before its route's own hooks: throws (an AppError) to refuse.
 * It returns a promise only on a rare path (v1 after its sunset); the others run synchronously.
 */
export type RequestGate = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/** Notes an answered request (metrics, usage, the failure throttle); synchronous, never refuses. */
export type AnswerObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The app's request-wide rules as few synchronous hooks: each Fastify hook costs a step of its
 * runner, and an async one a promise and a turn of the microtask queue, on every request
 * (bench/RESULTS.md, "P1 in instructions, issue 43"). Gates run in the order added, as one
 * `onRequest` hook per `install` — where it is installed decides which plugins' own hooks
 * (CORS, the pages' headers) come before it. Observers run in one `onResponse` hook.
 */
export class RequestHooks {
  private gates: RequestGate[] = [];
  private readonly observers: AnswerObserver[] = [];

  constructor(app: FastifyInstance) {
    app.decorateRequest('routeUrl', undefined);
    const observers = this.observers;
    app.addHook('onResponse', (request, reply, done) => {
      for (const observe of observers) observe(request, reply);
      done();
    });
  }

  gate(gate: RequestGate): void {
    this.gates.push(gate);
  }

  observe(observer: AnswerObserver): void {
    this.observers.push(observer);
  }

  /** Adds the gates collected since the last call as one `onRequest` hook. */
  install(app: FastifyInstance): void {
    const gates = this.gates;
    this.gates = [];
    if (gates.length === 0) return;
    app.addHook('onRequest', (request, reply, done) => {
      const waiting = runGates(gates, 0, request, reply);
      if (waiting === undefined) done();
      else waiting.then(() => done(), done);
    });
  }
}

/** Runs `gates` from `from` on: synchronously while each does, then after the one that waits. */
function runGates(
  gates: RequestGate[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> | undefined {
  for (let i = from; i < gates.length; i++) {
    const waiting = gates[i]!(request, reply);
    if (waiting !== undefined) return waiting.then(() => runGates(gates, i + 1, request, reply));
  }
  return undefined;
}

/**
 * The matched route's pattern (`/api/pub/leads/getLastLead`), undefined when none matched — or
 * no longer: `reply.callNotFound()` hands a request to the 404 handler (`is404`, a cheap read).
 * Read once a request: Fastify's `request.routeOptions` builds a new object on every read.
 */
export function routeOf(request: FastifyRequest): string | undefined {
  if (request.is404) return undefined;
  request.routeUrl ??= request.routeOptions.url;
  return request.routeUrl;
}
