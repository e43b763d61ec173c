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
  const sink = pretty
    ? pinoPretty({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        destination: destination ?? 1,
        sync: true,
      })
    : destination;
  return sink === undefined ? pino(options) : pino(options, sink);
}
