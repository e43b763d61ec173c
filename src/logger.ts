import { type DestinationStream, type Logger, pino } from 'pino';
import pinoPretty from 'pino-pretty';
import type { Config } from './config.js';

/**
 * Structured logs without personal data: requests are logged by method, route pattern and id; no header, body or lead ever reaches the log. `redact` is a second line of defence.
 */
export function createLogger(
  level: Config['logLevel'],
  destination?: DestinationStream,
  { pretty = false } = {},
): Logger {
  const options = {
    level,
    ...(pretty ? { hooks: { logMethod: oneLineRequests } } : {}),
    redact: {
      // A URL can hold a key (R18) or personal data: never logged, whoever passes one in.
      paths: ['req.headers', 'headers', '*.authorization', 'authorization', 'key', 'req.url', 'url'],
      censor: '[redacted]',
    },
    serializers: {
      // The route's pattern, not the path a client sent: a path segment can hold anything,
      // e-mail addresses and phone numbers included (R8). Unrouted requests log no path at all.
      req: (req: { method?: string; id?: string; routeOptions?: { url?: string } }) => ({
        id: req.id,
        method: req.method,
        route: req.routeOptions?.url ?? '(no route)',
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  };
  // `pretty`: one readable line per entry for a person at a terminal (npm start); anything else
  // (a pipe, a file, a log collector) gets the JSON lines. The same redaction applies to both.
  // The request id, bound to every entry a request writes, goes at the end of the line.
  const sink = pretty
    ? pinoPretty({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,reqId',
        messageFormat: (log, key) =>
          `${String(log[key] ?? '')}${typeof log.reqId === 'string' ? ` (${log.reqId})` : ''}`,
        destination: destination ?? 1,
        sync: true,
      })
    : destination;
  return sink === undefined ? pino(options) : pino(options, sink);
}

type LogMethod = (this: Logger, ...args: unknown[]) => void;

/**
 * On a terminal a request is one line — method, route pattern, status, time (README, "Logs") — where
 * Fastify writes two entries, `incoming request` and `request completed`, whose objects
 * pino-pretty spreads over ~13 lines. Every other entry is written as it comes. Off a terminal
 * this hook is not installed: the JSON lines keep both entries and their fields.
 */
function oneLineRequests(this: Logger, args: unknown[], write: LogMethod): void {
  const [fields, message] = args as [{ res?: Reply; responseTime?: number } | undefined, unknown];
  if (message === 'incoming request') return;
  const reply = fields?.res;
  if (message !== 'request completed' || reply === undefined) {
    write.apply(this, args);
    return;
  }
  const route = reply.request?.routeOptions?.url ?? '(no route)';
  const ms = typeof fields?.responseTime === 'number' ? ` ${fields.responseTime.toFixed(1)} ms` : '';
  write.call(this, `${reply.request?.method ?? '?'} ${route} ${reply.statusCode ?? '?'}${ms}`);
}

interface Reply {
  statusCode?: number;
  request?: { method?: string; routeOptions?: { url?: string } };
}
