import type { FastifyInstance } from 'fastify';
import { parseIsoTime } from '../../config.js';
import { createKey, KeyCommandError } from '../../keys/create-key.js';
import { routeSchema } from '../route-schema.js';
import {
  type ConsoleDeps,
  ConsolePageError,
  checkCsrf,
  consoleActor,
  noStore,
  notFound,
  requireSession,
  teamInView,
} from './console-deps.js';
import { html } from './html.js';
import { renderKeys } from './keys-page.js';

type Form = Record<string, string | undefined>;

/**
 * Creates a key for a member of the team in view, through the same service as `leadline keys
 * create`. The answer is the keys page with the secret in it — shown this once, never stored,
 * never in a URL — and a button that copies it (console.js; without script, select and copy).
 */
export function keyCreate(app: FastifyInstance, deps: ConsoleDeps): void {
  app.post('/keys', { schema: routeSchema('consoleCreateKey') }, async (request, reply) => {
    const session = await requireSession(request, deps);
    checkCsrf(session, request.body);
    const team = await teamInView(session, (request.query as Record<string, unknown>).team, deps);
    const form = (request.body ?? {}) as Form;
    const memberId = /^[0-9]{1,15}$/.test(form.member ?? '') ? Number(form.member) : null;
    const member = memberId === null ? null : await deps.store.directory.findMember(memberId);
    // Another team's member is as absent as one that does not exist.
    if (member === null || team === null || member.teamId !== team) throw notFound();
    const now = deps.now();
    let expiresAt: number | null = null;
    if (form.expires !== undefined && form.expires !== '') {
      expiresAt = parseIsoTime(form.expires);
      if (expiresAt === null || expiresAt <= now)
        throw new ConsolePageError(400, 'Not created', 'The expiry must be a date in the future.');
    }
    const label = (form.label ?? '').trim();
    let created: Awaited<ReturnType<typeof createKey>>;
    try {
      created = await createKey(
        deps.store,
        { member: member.id, label: label === '' ? null : label, expiresAt, actor: consoleActor(session) },
        now,
      );
    } catch (err) {
      if (err instanceof KeyCommandError) throw new ConsolePageError(400, 'Not created', err.message);
      throw err;
    }
    const notice = html`<section class="secret" aria-labelledby="secret-title" role="status">
<h2 id="secret-title">Key created for ${member.email}</h2>
<p>Copy the key now: it is shown this once and cannot be shown again.</p>
<p><label for="secret">API key</label> <input id="secret" class="secret-value" value="${created.key}" readonly size="44">
<button type="button" data-copy="secret">Copy</button> <span data-copied-for="secret" aria-live="polite"></span></p></section>`;
    return noStore(reply).send(await renderKeys(deps, session, team, notice));
  });
}
