import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Opaque, signed v2 cursors. The payload names what the cursor continues (`k`: search or
 * changes), the caller's team (`t`), a fingerprint of the request's filters and sort (`f`) and
 * the keyset position (`p`). The HMAC (SHA-256, with a secret kept in the store so every
 * instance agrees) makes a cursor unforgeable; the team and fingerprint make one that is
 * replayed by another team or with other filters a 400, never a page of something else.
 */

export type CursorKind = 'search' | 'changes';

interface Payload {
  v: 1;
  k: CursorKind;
  t: number;
  f: string;
  p: unknown;
}

const MAC_BYTES = 16;

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

export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }

  encode(kind: CursorKind, teamId: number, print: string, position: unknown): string {
    const payload: Payload = { v: 1, k: kind, t: teamId, f: print, p: position };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The position a cursor carries, once it is shown to be ours and to fit this request. */
  /** `name` is how the request names the cursor: `/cursor` in a body, `cursor` in a query. */
  decode(cursor: string, kind: CursorKind, teamId: number, print: string, name = 'cursor'): unknown {
    const [body, mac, ...rest] = cursor.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    if (
      body === undefined ||
      rest.length > 0 ||
      given.length !== MAC_BYTES ||
      !timingSafeEqual(given, this.mac(body))
    ) {
      throw refused(name, 'is not a cursor this service issued');
    }
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    if (payload.v !== 1 || payload.k !== kind) throw refused(name, `is not a ${kind} cursor`);
    if (payload.t !== teamId || payload.f !== print) {
      throw refused(
        name,
        'was issued for another request: reuse a cursor only with the same filters and sort',
      );
    }
    return payload.p;
  }
}

function refused(name: string, reason: string): AppError {
  return new AppError('invalid-parameters', `${name}: ${reason}.`, {
    invalid_params: [{ name, reason }],
  });
}
