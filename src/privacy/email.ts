import { createHmac } from 'node:crypto';
import { invalidParams } from '../shared/errors.js';

/**
 * An e-mail address as erasure and suppression compare it (docs/privacy.md "Erasure"):
 * surrounding space trimmed, lower case; nothing else folded (no `+tag` dropped). The same rule
 * as subject access's (another change adds a shared `normaliseEmail` in src/leads/; until it is
 * merged this one stands alone — they must stay equal).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** RFC 5321's path limit. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * The e-mail an erasure names, normalised; `pointer` names it in a 400. **leadline decision**:
 * plausible is enough — at most 254 characters, no space inside, something before an `@` and a
 * domain after it with a letter or digit. Anything else names no person: a typo is refused, not
 * "erased" (and suppressed) as an address that exists nowhere.
 */
export function erasureEmail(raw: string, pointer = '/email'): string {
  const email = normaliseEmail(raw);
  const at = email.lastIndexOf('@');
  const reason =
    email.length > MAX_EMAIL_LENGTH
      ? `an e-mail address of at most ${MAX_EMAIL_LENGTH} characters`
      : at <= 0 || !/[\p{L}\p{N}]/u.test(email.slice(at + 1)) || /\s/u.test(email)
        ? 'an e-mail address (name@domain)'
        : null;
  if (reason !== null) throw invalidParams([{ name: pointer, reason }]);
  return email;
}

/** The store secret the e-mail hashes are keyed with (Store.secret). */
export const EMAIL_HASH_SECRET = 'erasure-email';

/**
 * The keyed hash a receipt and a suppression keep instead of the e-mail: HMAC-SHA256 (hex) of
 * the normalised address under the store's own secret — equal for equal addresses in one store,
 * and no dictionary of addresses can be hashed to it without the secret.
 */
export function emailHash(secret: Buffer, normalisedEmail: string): string {
  return createHmac('sha256', secret).update(normalisedEmail, 'utf8').digest('hex');
}
