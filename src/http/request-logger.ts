import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type LogAt = (...args: unknown[]) => void;

/**
 * The logger a request carries (`request.log`), made on first use. Fastify makes a pino child for
 * every request, bound to its id; making one serialises the bindings and rebuilds pino's
 * formatters — most of a µs a request in the profiles of bench/RESULTS.md ("P1 in instructions") — while at the usual levels almost
 * no request writes a line. This one asks the parent whether a level is on and makes the child
 * only when a line is written or a child of its own is asked for: the same lines, with the same
 * bindings, as Fastify's own child.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  declare fatal: LogAt;
  declare error: LogAt;
  declare warn: LogAt;
  declare info: LogAt;
  declare debug: LogAt;
  declare trace: LogAt;

  static {
    // One method per level, on the prototype: the level is asked before anything else is done.
    for (const level of LEVELS) {
      RequestLogger.prototype[level] = function (this: RequestLogger, ...args: unknown[]) {
        if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
        (this.real[level] as LogAt)(...args);
      };
    }
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a request logger made on first use. A route with a level of its
 * own (`logLevel`) gets pino's child at once, since its levels are not the parent's.
 */
export function requestLogger(
  this: unknown,
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const logger = parent as Logger;
  if (options.level !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options);
}
