import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `llk_` + 30 base62 characters of randomness (178 bits) + 6 base62 characters
 * of CRC32 over everything before them. The prefix makes a leaked key identifiable by secret
 * scanners; the checksum lets them (and us, before touching the store) reject look-alikes offline.
 * The store keeps only the SHA-256 of the key and its display prefix: a key is high-entropy, so a
 * fast hash is enough (a slow password hash would guard against guessing, which 178 bits already do).
 */
export const KEY_PREFIX = 'llk_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
/** Characters of a key shown in listings and logs of key management: the prefix and 8 random ones. */
export const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(n: number, width: number): string {
  let out = '';
  let v = n;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateKey(): string {
  let body = KEY_PREFIX;
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(62)];
  return body + checksum(body);
}

/** Offline check: right prefix, length, alphabet and checksum. No store access. */
export function isWellFormedKey(candidate: string): boolean {
  if (candidate.length !== KEY_LENGTH || !KEY_SHAPE.test(candidate)) return false;
  const body = candidate.slice(0, KEY_LENGTH - CHECKSUM_LENGTH);
  return checksum(body) === candidate.slice(KEY_LENGTH - CHECKSUM_LENGTH);
}

/**
 * The key an `Authorization` header presents — `<key>` or `Bearer <key>` (docs/v1-reference.md C2) — or
 * null when it holds none that is well-formed.
 */
export function presentedKey(header: string | undefined): string | null {
  const key = /^(?:bearer\s+)?(\S+)$/i.exec(header?.trim() ?? '')?.[1];
  return key !== undefined && isWellFormedKey(key) ? key : null;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

/** Constant-time comparison of a presented key's hash with a stored one. */
export function hashesMatch(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
