import { createHmac } from 'node:crypto';
import { CursorCodec, type CursorPayload } from '../../src/leads/cursor.js';
import type { Store } from '../../src/store.js';

/**
 * A cursor in format 1, as the code before issue 21 wrote it (CursorCodec.encode at 98269ab,
 * copied here unchanged so the test does not depend on the code it checks): base64url of the JSON
 * payload, `.`, HMAC-SHA256 of that text truncated to 16 bytes.
 */
export function signedCursor(secret: Buffer, payload: CursorPayload): string {
  const body = Buffer.from(
    JSON.stringify({ v: 1, k: payload.k, t: payload.t, f: payload.f, p: payload.p }),
  ).toString('base64url');
  const mac = createHmac('sha256', secret).update(body).digest().subarray(0, 16);
  return `${body}.${mac.toString('base64url')}`;
}

/** The same cursor as the service's `sealed` one, in the old signed format, for the store's secret. */
export async function asSignedCursor(store: Store, sealed: string): Promise<string> {
  const secret = await store.secret('v2-cursor');
  return signedCursor(secret, new CursorCodec(secret).open(sealed));
}

/** What a cursor shows to anyone who decodes it without the key: its bytes as text. */
export function cursorBytes(cursor: string): string {
  return cursor
    .split('.')
    .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
    .join('\n');
}
