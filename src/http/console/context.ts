import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { type ConsoleSubject, resumeSession } from '../../domain/console-sign-in.js';
import type { Store } from '../../domain/store.js';

/** What every console page needs: the configuration, the store and the clock. */
export interface ConsoleDeps {
  config: Config;
  store: Store;
  now: () => number;
}

/** A refusal shown as a page: its status, a title and one sentence that says what to do. */
export class ConsolePageError extends Error {
  override name = 'ConsolePageError';
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
  ) {
    super(detail);
  }
}

export const SESSION_COOKIE = 'leadline_console';
const COOKIE_PATH = '/console';

/** The signed-in person on this request, and the CSRF token their forms carry. */
export interface ConsoleSession {
  id: string;
  subject: ConsoleSubject;
  csrf: string;
}

export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it, the first line
 * against CSRF), Secure when people reach the service over https; scoped to /console.
 */
export function sessionCookie(config: Config, value: string | null): string {
  const secure = config.publicUrl.startsWith('https:') ? '; Secure' : '';
  const life = value === null ? '; Max-Age=0' : '';
  return `${SESSION_COOKIE}=${value ?? ''}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict${secure}${life}`;
}

/** The synchronizer token of a session: derived from its id with a secret of the store, never stored. */
async function csrfFor(store: Store, sessionId: string): Promise<string> {
  const secret = await store.secret('console-csrf');
  return createHmac('sha256', secret).update(sessionId).digest('hex');
}

/** The request's session, or a 401 page that says how to get a new link. */
export async function requireSession(request: FastifyRequest, deps: ConsoleDeps): Promise<ConsoleSession> {
  const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
  const subject = id === null ? null : await resumeSession(deps.store, id, deps.now());
  if (id === null || subject === null) {
    throw new ConsolePageError(
      401,
      'Signed out',
      'Your console session has ended (signed out, or idle too long). Ask the operator for a new sign-in link: `leadline console link`.',
    );
  }
  return { id, subject, csrf: await csrfFor(deps.store, id) };
}

/** Every change carries the session's token in its form (`_csrf`); anything else is refused. */
export function checkCsrf(session: ConsoleSession, body: unknown): void {
  const sent =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)._csrf : undefined;
  const ok =
    typeof sent === 'string' &&
    sent.length === session.csrf.length &&
    timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrf));
  if (!ok) {
    throw new ConsolePageError(
      403,
      'Refused',
      'This change did not come from a console page (its form token is missing or wrong). Reload the page and try again.',
    );
  }
}

export function requireOperator(session: ConsoleSession, why: string): void {
  if (session.subject.kind !== 'operator') throw new ConsolePageError(403, 'Operator only', why);
}

/**
 * The team a view shows: a team admin's own, always (another team's id in the URL is a 404, as a
 * team that does not exist); for the operator the `team` asked for, or null for every team.
 */
export async function teamInView(
  session: ConsoleSession,
  value: unknown,
  deps: ConsoleDeps,
): Promise<number | null> {
  const asked = typeof value === 'string' && value !== '' ? value : null;
  if (asked !== null && !/^[0-9]{1,15}$/.test(asked)) throw notFound();
  if (session.subject.kind === 'team-admin') {
    const own = session.subject.member.teamId;
    if (asked !== null && Number(asked) !== own) throw notFound();
    return own;
  }
  if (asked === null) return null;
  if ((await deps.store.directory.team(Number(asked))) === null) throw notFound();
  return Number(asked);
}

export function notFound(): ConsolePageError {
  return new ConsolePageError(404, 'Not found', 'There is nothing at this address for you.');
}

/** Pages hold the session's data: never cached, never stored by a shared cache. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
}
