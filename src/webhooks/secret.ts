import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets. Standard Webhooks signs with HMAC-SHA256 under the secret itself,
 * so leadline must be able to read it back: it is shown once (at creation and rotation), never
 * logged, and kept sealed (AES-256-GCM under the operator's LEADLINE_WEBHOOK_SECRET_KEY) when
 * that key is configured; without it the store holds the secret as is (docs/webhooks.md).
 */

const PREFIX = 'whsec_';
const SEALED = 'sealed1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new secret: `whsec_` and 24 random bytes in base64, the form Standard Webhooks libraries take. */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

export class SecretSealError extends Error {
  override name = 'SecretSealError';
}

/** Seals secrets for the store and opens them for signing. */
export class SecretSeal {
  /** `key`: 32 bytes, or null to store secrets as they are. */
  constructor(private readonly key: Buffer | null) {
    if (key !== null && key.length !== 32) throw new SecretSealError('the secret key must be 32 bytes');
  }

  seal(secret: string): string {
    if (this.key === null) return secret;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED}${sealed.toString('base64url')}`;
  }

  open(stored: string): string {
    if (!stored.startsWith(SEALED)) return stored;
    if (this.key === null) {
      throw new SecretSealError('an endpoint secret is sealed and LEADLINE_WEBHOOK_SECRET_KEY is not set');
    }
    const raw = Buffer.from(stored.slice(SEALED.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretSealError(
        'an endpoint secret does not open with LEADLINE_WEBHOOK_SECRET_KEY (another key?)',
      );
    }
  }
}
