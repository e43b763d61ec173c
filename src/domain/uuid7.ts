import { randomFillSync } from 'node:crypto';

/**
 * UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then randomness. Time-ordered,
 * so new leads append to the end of the id index instead of landing at random pages: on a
 * 200k-lead import that is the difference measured in the changelog.
 */
export function uuid7(now = Date.now()): string {
  const b = randomFillSync(Buffer.alloc(16));
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70; // version 7
  b[8] = (b[8]! & 0x3f) | 0x80; // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
