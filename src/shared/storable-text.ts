import { invalidParams } from './errors.js';

/**
 * Text every engine stores as it was sent — one rule for the v2 bodies and the import.
 *
 * - U+0000 (NUL): PostgreSQL's `text` cannot hold it (SQLite can), so the engines would disagree.
 * - An unpaired UTF-16 surrogate (`"\ud800"` in JSON): not a Unicode character, so UTF-8 —
 *   PostgreSQL's, SQLite's, the wire's — cannot carry it; Node writes U+FFFD in its place, and
 *   the stored text would silently differ from what was sent (RFC 8259 §8.2 calls such strings
 *   unpredictable).
 *
 * Every other character, other controls (U+0001–U+001F, U+007F) included, is stored verbatim.
 */
export interface UnstorableText {
  /** Where: member names and array indexes from the top of the value. */
  path: (string | number)[];
  reason: string;
}

/** Any surrogate, paired or not: rare, so most strings skip the closer look of LONE_SURROGATE. */
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, or null when it can. */
export function unstorableReason(text: string): string | null {
  if (text.includes('\u0000')) return 'contains U+0000 (NUL), which cannot be stored';
  if (!SURROGATE.test(text)) return null;
  const lone = LONE_SURROGATE.exec(text);
  if (lone === null) return null;
  const hex = lone[0].charCodeAt(0).toString(16).toUpperCase();
  return `contains an unpaired surrogate (U+${hex}), which is not a Unicode character`;
}

interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

/**
 * The first string or member name in `value` (parsed JSON) that cannot be stored, or null.
 * Walks with its own stack: a deeply nested record must not overflow the call stack.
 */
export function findUnstorableText(value: unknown): UnstorableText | null {
  const stack: Visit[] = [{ value, key: null, parent: null }];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v.value === 'string') {
      const reason = unstorableReason(v.value);
      if (reason !== null) return { path: pathOf(v), reason };
    } else if (Array.isArray(v.value)) {
      for (let i = v.value.length - 1; i >= 0; i--) stack.push({ value: v.value[i], key: i, parent: v });
    } else if (typeof v.value === 'object' && v.value !== null) {
      const entries = Object.entries(v.value);
      for (const [name] of entries) {
        const reason = unstorableReason(name);
        if (reason !== null) return { path: pathOf(v), reason: `has a member name that ${reason}` };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, member] = entries[i] as [string, unknown];
        stack.push({ value: member, key: name, parent: v });
      }
    }
  }
  return null;
}

function pathOf(v: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | null = v; at !== null && at.key !== null; at = at.parent) path.unshift(at.key);
  return path;
}

/** RFC 6901 JSON pointer of `path`: how the API names a member. */
export function jsonPointer(path: (string | number)[]): string {
  return path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** A request body with text that cannot be stored is a 400 naming the member (v2 "Common rules"). */
export function assertStorableBody(body: unknown): void {
  const found = findUnstorableText(body);
  if (found !== null) throw invalidParams([{ name: jsonPointer(found.path) || '/', reason: found.reason }]);
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * `text` made storable for a record kept as it came (a receiver's answer, an error's words): NUL
 * and unpaired surrogates become U+FFFD, and the result is cut to at most `maxBytes` of UTF-8
 * at a character's end, never inside one (nor between a surrogate pair's halves).
 */
export function storableExcerpt(text: string, maxBytes: number): string {
  const clean = text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
  if (clean.length * 3 <= maxBytes) return clean;
  let bytes = 0;
  let end = 0;
  for (const ch of clean) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += ch.length;
  }
  return clean.slice(0, end);
}
