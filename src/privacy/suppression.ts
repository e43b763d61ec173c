import { normaliseEmail } from '../leads/email.js';
import { AppError } from '../shared/errors.js';
import { EMAIL_HASH_SECRET, emailHash } from './email.js';
import type { ErasureStore, Suppression } from './erasure.port.js';
import { personEmail } from './person-email.js';

/**
 * Suppression (docs/privacy.md "Suppression"): an erased e-mail, kept as its keyed hash, is
 * refused from then on — a v2 creation or an update carrying it is `422 email-suppressed`, an
 * import skips its records and counts them — until the operator lifts it.
 */
export interface SuppressionPorts {
  erasures: ErasureStore;
  secret: (name: string) => Promise<Buffer>;
}

/** The e-mail member of a lead's `fields`, normalised; null when it has none. */
export function emailOf(fields: string | Record<string, unknown>): string | null {
  const f = typeof fields === 'string' ? (JSON.parse(fields) as Record<string, unknown>) : fields;
  if (typeof f.email !== 'string') return null;
  const email = normaliseEmail(f.email);
  return email === '' ? null : email;
}

export function suppressedError(): AppError {
  return new AppError(
    'email-suppressed',
    'This e-mail address was erased at its owner’s request and may not be stored again; the operator can lift that (leadline suppression remove).',
  );
}

/** Refuses (422 `email-suppressed`) an e-mail suppressed for the team or globally. */
export async function refuseSuppressed(
  ports: SuppressionPorts,
  teamId: number,
  email: string | null,
): Promise<void> {
  if (email === null) return;
  const hash = emailHash(await ports.secret(EMAIL_HASH_SECRET), email);
  if (await ports.erasures.suppressed(teamId, hash)) throw suppressedError();
}

/**
 * For an import: every suppression read once, then a check per lead (`fields` as stored, its
 * team) that hashes only while there is any suppression at all. null: none to check.
 */
export async function suppressionCheck(
  ports: SuppressionPorts,
): Promise<((teamId: number, fields: string) => boolean) | null> {
  const all = await ports.erasures.suppressions(null);
  if (all.length === 0) return null;
  const secret = await ports.secret(EMAIL_HASH_SECRET);
  const byHash = new Map<string, Suppression[]>();
  for (const s of all) byHash.set(s.emailHash, [...(byHash.get(s.emailHash) ?? []), s]);
  return (teamId, fields) => {
    const email = emailOf(fields);
    if (email === null) return false;
    const found = byHash.get(emailHash(secret, email));
    return found?.some((s) => s.teamId === null || s.teamId === teamId) === true;
  };
}

/** Suppressions as the operator lists them: hashes and dates only. */
export async function listSuppressions(
  ports: SuppressionPorts,
  teamId: number | null,
): Promise<Suppression[]> {
  return ports.erasures.suppressions(teamId);
}

/**
 * Lifts the suppression of an e-mail for a team (null: the global one), e.g. when the person
 * asks to be a lead again. Returns whether there was one.
 */
export async function liftSuppression(
  ports: SuppressionPorts,
  teamId: number | null,
  rawEmail: string,
): Promise<boolean> {
  const email = personEmail(rawEmail);
  return ports.erasures.unsuppress(teamId, emailHash(await ports.secret(EMAIL_HASH_SECRET), email));
}
