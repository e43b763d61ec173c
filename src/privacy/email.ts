import { createHmac } from 'node:crypto';

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
