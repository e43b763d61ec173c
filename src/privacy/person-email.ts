import { normaliseEmail } from '../leads/email.js';
import { invalidParams } from '../shared/errors.js';

/**
 * The e-mail a privacy request names (docs/privacy.md "Subject access", "Erasure", "Suppression"), normalised as leadline
 * compares addresses (src/leads/email.ts). **leadline decision**: plausible is enough — after
 * trimming, at most 254 characters (RFC 5321's path limit), no space inside, an `@` with
 * something before it and a domain after it that holds a letter or digit. Anything else names
 * no person: a 400 naming `/email`, so a typo is not answered with "nothing found".
 */
export const MAX_EMAIL_LENGTH = 254;

export function personEmail(raw: string, pointer = '/email'): string {
  const email = normaliseEmail(raw);
  const at = email.lastIndexOf('@');
  const reason =
    email.length > MAX_EMAIL_LENGTH
      ? `an e-mail address of at most ${MAX_EMAIL_LENGTH} characters`
      : at <= 0 || !/[\p{L}\p{N}]/u.test(email.slice(at + 1)) || /\s/u.test(email)
        ? 'an e-mail address (name@domain), the one a lead holds'
        : null;
  if (reason !== null) throw invalidParams([{ name: pointer, reason }]);
  return email;
}
