import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

/**
 * Structured logs without personal data: requests are logged by method, path (no query string)
 * and id; no header, body or lead ever reaches the log. `redact` is a second line of defence.
 */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers', 'headers', '*.authorization', 'authorization', 'key'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method?: string; url?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url?.split('?')[0],
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
