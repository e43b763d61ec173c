import { createHash, randomBytes } from 'node:crypto';
import type { Member } from '../directory/directory.js';
import type { Store } from '../store.js';

/**
 * Signing in to the console (issue 15 §1): `leadline console link` makes a single-use link for a
 * team admin or the operator; opening it starts a server-side session that ends after a spell
 * of idleness, at its lifetime's end however active (`LEADLINE_CONSOLE_SESSION_MAX_HOURS`), or at
 * sign-out. Tokens are 32 random bytes in hex (no `llk_` can appear in them, so
 * the guard against API keys in URLs never mistakes one); the store keeps their SHA-256 only.
 */
export const SIGN_IN_LINK_MS = 15 * 60_000;
export const SESSION_IDLE_MS = 30 * 60_000;

const TOKEN = /^[0-9a-f]{64}$/;

export class ConsoleSignInError extends Error {
  override name = 'ConsoleSignInError';
}

/** Whom a console session acts for: one team's admin, or the operator (every team, global settings). */
export type ConsoleSubject = { kind: 'operator' } | { kind: 'team-admin'; member: Member };

export interface SignInLink {
  /** Goes into the link; shown once, never stored. */
  token: string;
  expiresAt: number;
  subject: ConsoleSubject;
}

export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** A link for the operator (`member` null) or for a team admin named by id or e-mail. */
export async function createSignInLink(
  store: Pick<Store, 'directory' | 'console'>,
  member: number | string | null,
  now: number,
): Promise<SignInLink> {
  let subject: ConsoleSubject = { kind: 'operator' };
  if (member !== null) {
    const found = await store.directory.findMember(member);
    if (found === null) throw new ConsoleSignInError(`no member ${JSON.stringify(member)}`);
    if (found.role !== 'admin') {
      throw new ConsoleSignInError(
        `member ${found.id} (${found.email}) is not a team admin: the console is for team admins and the operator`,
      );
    }
    subject = { kind: 'team-admin', member: found };
  }
  const token = newToken();
  const expiresAt = now + SIGN_IN_LINK_MS;
  await store.console.prune(now, now - SESSION_IDLE_MS);
  await store.console.addLink({
    hash: tokenHash(token),
    memberId: subject.kind === 'operator' ? null : subject.member.id,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt, subject };
}

/** Uses a link: a new session's id (the cookie's value), or null when the link is not good. */
export async function openSession(
  store: Pick<Store, 'console'>,
  token: string,
  now: number,
): Promise<string | null> {
  if (!TOKEN.test(token)) return null;
  const holder = await store.console.redeemLink(tokenHash(token), now);
  if (holder === null) return null;
  const sessionId = newToken();
  await store.console.addSession({ hash: tokenHash(sessionId), memberId: holder.memberId, createdAt: now });
  return sessionId;
}

/** How long a session lasts: `maxMs` from sign-in at most, and `idleMs` without a request. */
export interface SessionLifetime {
  maxMs: number;
  idleMs?: number;
}

/**
 * The subject of a session still in use, its idle clock restarted; null when it has ended (signed
 * out, idle too long, or older than `maxMs` however active — a stolen cookie does not last
 * forever), or when its member is no longer a team admin (roles are read afresh on every request).
 */
export async function resumeSession(
  store: Pick<Store, 'console' | 'directory'>,
  sessionId: string,
  now: number,
  { maxMs, idleMs = SESSION_IDLE_MS }: SessionLifetime,
): Promise<ConsoleSubject | null> {
  if (!TOKEN.test(sessionId)) return null;
  const holder = await store.console.touchSession(tokenHash(sessionId), now, now - idleMs, now - maxMs);
  if (holder === null) return null;
  if (holder.memberId === null) return { kind: 'operator' };
  const member = await store.directory.findMember(holder.memberId);
  return member === null || member.role !== 'admin' ? null : { kind: 'team-admin', member };
}

export async function closeSession(store: Pick<Store, 'console'>, sessionId: string): Promise<void> {
  if (TOKEN.test(sessionId)) await store.console.removeSession(tokenHash(sessionId));
}
