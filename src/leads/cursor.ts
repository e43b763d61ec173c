import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { AppError } from '../shared/errors.js';

/**
 * Opaque, sealed v2 cursors. The payload names what the cursor continues (`k`: search or
 * changes), the caller's team (`t`), a fingerprint of the request's filters and sort (`f`) and
 * the keyset position (`p`). The team and fingerprint make a cursor replayed by another team or
 * with other filters a 400, never a page of something else.
 *
 * Sealed (format 2; docs/reliability.md R15): AES-256-GCM, so a cursor is unforgeable *and*
 * unreadable — the position holds the store-wide sequence (and on PostgreSQL a transaction id),
 * which would tell one team how many leads every team stores. Each cursor has its own key,
 * HKDF-SHA256 (RFC 5869) of the store's secret with a random 16-byte salt: GCM's 96-bit random
 * nonces are good for about 2^32 messages under one key (NIST SP 800-38D §8.3), a poller can
 * pass that, and a 128-bit salt cannot repeat in any number of cursors a store will issue.
 * Wire: base64url(version 0x02 ‖ salt ‖ ciphertext ‖ tag); no `.` in it.
 *
 * Signed (format 1, issued before): base64url(JSON payload) `.` HMAC-SHA256 truncated to 16
 * bytes. Still accepted, as cursors do not expire; never issued again.
 */

export type CursorKind = 'search' | 'changes' | 'audit' | 'deliveries' | 'events';

/** What an authentic cursor says, whichever format carried it. */
export interface CursorPayload {
  k: CursorKind;
  t: number;
  f: string;
  p: unknown;
}

const MAC_BYTES = 16;
const SEALED = 0x02;
const SALT_BYTES = 16;
const TAG_BYTES = 16;
/** HKDF `info`: binds the derived keys to this use of the secret (RFC 5869 §3.2). */
const INFO = 'leadline v2 cursor seal';

/** A stable digest of a request's filters and sort (any JSON value; key order is normalised). */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('base64url').slice(0, 22);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Cursors remembered as opened (their text), at most this many: then the oldest goes. */
const OPENED_KEPT = 4096;

export class CursorCodec {
  /**
   * Sealed cursors already opened, and what they say. Opening is an HKDF and an AES-GCM; the
   * clients of a waiting feed send back the very cursor they were given, thousands of them the
   * same one after a fan-out. A string is only kept once it opened, so a forged one never hits.
   */
  private readonly opened = new Map<string, string>();

  constructor(private readonly secret: Buffer) {}

  encode(kind: CursorKind, teamId: number, print: string, position: unknown): string {
    const payload: CursorPayload = { k: kind, t: teamId, f: print, p: position };
    const salt = randomBytes(SALT_BYTES);
    const { key, iv } = this.derive(salt);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const header = Buffer.from([SEALED]);
    cipher.setAAD(header);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([header, salt, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The position a cursor carries, once it is shown to be ours and to fit this request. */
  /** `name` is how the request names the cursor: `/cursor` in a body, `cursor` in a query. */
  decode(cursor: string, kind: CursorKind, teamId: number, print: string, name = 'cursor'): unknown {
    const payload = this.open(cursor, name);
    if (payload.k !== kind) throw refused(name, `is not a ${kind} cursor`);
    if (payload.t !== teamId || payload.f !== print) {
      throw refused(
        name,
        'was issued for another request: reuse a cursor only with the same filters and sort',
      );
    }
    return payload.p;
  }

  /** What a cursor this service issued (either format) says; anything else is a 400. */
  open(cursor: string, name = 'cursor'): CursorPayload {
    const text = cursor.includes('.') ? this.verifySigned(cursor) : this.unsealKept(cursor);
    if (text === null) throw refused(name, 'is not a cursor this service issued');
    return JSON.parse(text) as CursorPayload;
  }

  private unsealKept(cursor: string): string | null {
    const kept = this.opened.get(cursor);
    if (kept !== undefined) return kept;
    const text = this.unseal(cursor);
    if (text === null) return null;
    if (this.opened.size >= OPENED_KEPT) this.opened.delete(this.opened.keys().next().value as string);
    this.opened.set(cursor, text);
    return text;
  }

  /** One key and IV per salt: 44 bytes of HKDF output. */
  private derive(salt: Buffer): { key: Buffer; iv: Buffer } {
    const okm = Buffer.from(hkdfSync('sha256', this.secret, salt, INFO, 44));
    return { key: okm.subarray(0, 32), iv: okm.subarray(32) };
  }

  private unseal(cursor: string): string | null {
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length <= 1 + SALT_BYTES + TAG_BYTES || raw[0] !== SEALED) return null;
    const { key, iv } = this.derive(raw.subarray(1, 1 + SALT_BYTES));
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(raw.subarray(0, 1));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      const body = raw.subarray(1 + SALT_BYTES, raw.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null; // the tag does not match: altered, or sealed under another secret
    }
  }

  private verifySigned(cursor: string): string | null {
    const [body, mac, ...rest] = cursor.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    if (body === undefined || rest.length > 0 || given.length !== MAC_BYTES) return null;
    const expected = createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
    if (!timingSafeEqual(given, expected)) return null;
    const text = Buffer.from(body, 'base64url').toString('utf8');
    // Format 1 carried its version in the payload; only version 1 was ever signed.
    return (JSON.parse(text) as { v?: unknown }).v === 1 ? text : null;
  }
}

function refused(name: string, reason: string): AppError {
  return new AppError('invalid-parameters', `${name}: ${reason}.`, {
    invalid_params: [{ name, reason }],
  });
}
