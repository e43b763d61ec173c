import type { FastifyInstance } from 'fastify';
import { parseIsoTime } from '../../config.js';
import { removeBrownout } from '../../retirement/remove-brownout.js';
import { BrownoutRefused, scheduleBrownout } from '../../retirement/schedule-brownout.js';
import { routeSchema } from '../route-schema.js';
import { OPERATOR_ONLY, renderBrownouts } from './brownouts-page.js';
import {
  type ConsoleDeps,
  ConsolePageError,
  checkCsrf,
  consoleActor,
  noStore,
  notFound,
  requireOperator,
  requireSession,
} from './console-deps.js';
import { html } from './html.js';

/** A `datetime-local` value (no zone) is read as UTC, as the form says. */
function utcTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value) ? `${value}Z` : value;
  return parseIsoTime(zoned);
}

function refuse(detail: string): ConsolePageError {
  return new ConsolePageError(400, 'Not scheduled', detail);
}

/** Schedules and removes brownouts, as `leadline v1 brownout add|remove` (operator only). */
export function brownoutSchedule(app: FastifyInstance, deps: ConsoleDeps): void {
  app.post('/brownouts', { schema: routeSchema('consoleScheduleBrownout') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    requireOperator(session, OPERATOR_ONLY);
    const form = request.body as Record<string, unknown>;
    const startsAt = utcTime(form.starts);
    const endsAt = utcTime(form.ends);
    if (startsAt === null || endsAt === null)
      throw refuse('Give the start and the end as dates and times (UTC).');
    const now = deps.now();
    const text = typeof form.keys === 'string' ? form.keys.trim() : '';
    let keyIds: number[] | null = null;
    if (text !== '') {
      const parts = text.split(/[\s,]+/).filter(Boolean);
      if (!parts.every((p) => /^[0-9]{1,15}$/.test(p))) throw refuse('Keys are key ids separated by commas.');
      keyIds = [...new Set(parts.map(Number))];
    }
    const { brownout: b } = await scheduleBrownout(deps.store, {
      startsAt,
      endsAt,
      keyIds,
      now,
      actor: consoleActor(session),
    }).catch((err: unknown) => {
      if (!(err instanceof BrownoutRefused)) throw err;
      const r = err.refusal;
      throw refuse(
        r.kind === 'ends-before-start'
          ? 'The end must come after the start.'
          : r.kind === 'already-ended'
            ? 'The window has already ended.'
            : `No key ${r.keyIds.join(', ')}.`,
      );
    });
    const notice = html`<p role="status" class="notice">Brownout ${b.id} scheduled.</p>`;
    return noStore(reply).send(await renderBrownouts(deps, session, notice));
  });

  app.post(
    '/brownouts/:id/remove',
    { schema: routeSchema('consoleRemoveBrownout') },
    async (request, reply) => {
      const session = await requireSession(request, deps);
      checkCsrf(session, request.body);
      requireOperator(session, OPERATOR_ONLY);
      const { id } = request.params as { id: string };
      if (
        !/^[0-9]{1,15}$/.test(id) ||
        !(await removeBrownout(deps.store, {
          id: Number(id),
          actor: consoleActor(session),
          now: deps.now(),
        }))
      )
        throw notFound();
      return reply.redirect('/console/brownouts', 303);
    },
  );
}
