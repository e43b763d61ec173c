import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

/**
 * Structured logs without personal data: requests are logged by method, route pattern and id; no header, body or lead ever reaches the log. `redact` is a second line of defence.
 */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers', 'headers', '*.authorization', 'authorization', 'key'],
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
  });
}
