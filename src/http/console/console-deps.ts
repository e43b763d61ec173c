import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActor } from '../../audit/audit.port.js';
import type { Config } from '../../config.js';
import { type ConsoleSubject, resumeSession } from '../../console/sign-in.js';
import type { Store } from '../../store.js';
import { Html, html } from './html.js';

/** What every console page needs: the configuration, the store and the clock. */
export interface ConsoleDeps {
  config: Config;
  store: Store;
  now: () => number;
}

/**
 * A refusal shown as a page: its status, a title and one sentence that says what to do (text, or
 * `Html` made with `html` when it names a command); `back` says whether a link back to the console
 * helps (not when the console itself is what refused: it would lead to the same page).
 */
export class ConsolePageError extends Error {
  override name = 'ConsolePageError';
  readonly detail: Html;
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string | Html,
    readonly back = true,
  ) {
    super(String(detail));
    this.detail = detail instanceof Html ? detail : html`${detail}`;
  }
}

/** How to get a sign-in link, said wherever the console needs one. */
export const HOW_TO_SIGN_IN = html`Ask the operator for a sign-in link: they make one with <code>leadline console link</code>.`;

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
  const maxMs = deps.config.consoleSessionMaxMs;
  const subject = id === null ? null : await resumeSession(deps.store, id, deps.now(), { maxMs });
  // Someone who never signed in (no cookie) is told so; a cookie the store no longer knows is a
  // session that ended. Either way the console has nothing to go back to: no link back.
  if (id === null) {
    throw new ConsolePageError(401, 'Not signed in', html`You are not signed in. ${HOW_TO_SIGN_IN}`, false);
  }
  if (subject === null) {
    throw new ConsolePageError(
      401,
      'Signed out',
      html`Your console session has ended (signed out, idle too long, or signed in more than ${String(maxMs / 3_600_000)} hours ago). ${HOW_TO_SIGN_IN}`,
      false,
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

/** Who the audit log names for a console change: the signed-in team admin, or the operator. */
export function consoleActor(session: ConsoleSession): AuditActor {
  return session.subject.kind === 'team-admin'
    ? { via: 'console', memberId: session.subject.member.id }
    : { via: 'operator' };
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
