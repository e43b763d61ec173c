import type { FastifyInstance } from 'fastify';
import { V1_OPERATION_NAMES } from '../../retirement/report.js';
import { routeSchema } from '../route-schema.js';
import { type ConsoleDeps, requireSession, teamInView } from './console-deps.js';
import { daysParam, v1View } from './v1-data.js';

/**
 * A CSV cell (RFC 4180 quoting). A cell a spreadsheet would read as a formula (user agents are
 * whatever clients send) is prefixed with `'`, so opening the export runs nothing.
 */
export function csvCell(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The v1 report of the team in view as CSV: one row per key, the columns of `leadline v1 report`. */
export function v1Csv(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/v1.csv', { schema: routeSchema('consoleV1Csv') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    const query = request.query as Record<string, unknown>;
    const team = await teamInView(session, query.team, deps);
    const view = await v1View(deps, team, daysParam(query.days));
    const header = [
      'keyId',
      'prefix',
      'member',
      'status',
      'v1Calls',
      ...V1_OPERATION_NAMES,
      'v1LastSeen',
      'userAgent',
      'v2Calls',
    ];
    const lines = [header.join(',')];
    for (const k of view.report.keys) {
      const key = view.keys.get(k.keyId);
      const cells = [k.keyId, key?.display ?? null, key?.email ?? null, k.status, k.v1Calls];
      for (const op of V1_OPERATION_NAMES) cells.push(k.v1ByOperation[op] ?? 0);
      cells.push(k.v1LastSeen, k.userAgent, k.v2Calls);
      lines.push(cells.map(csvCell).join(','));
    }
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="v1-report-${view.days}d.csv"`)
      .type('text/csv; charset=utf-8')
      .send(`${lines.join('\r\n')}\r\n`);
  });
}
