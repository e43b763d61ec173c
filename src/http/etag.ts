import { createHash } from 'node:crypto';

/**
 * Bodies answered recently, with their validators: a lead read again and again (a poller's
 * getLastLead) is digested once (bench/RESULTS.md, "P1 in instructions"). Keyed by the body itself, so a
 * changed body can never get an old tag. Bounded: emptied when full.
 */
const tags = new Map<string, string>();
const TAGS_REMEMBERED = 1_000;

/** A strong validator for a small body: a digest of its bytes. */
export function etagOf(body: string): string {
  let tag = tags.get(body);
  if (tag === undefined) {
    tag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    if (tags.size >= TAGS_REMEMBERED) tags.clear();
    tags.set(body, tag);
  }
  return tag;
}

/** RFC 9110 §13.1.2: `If-None-Match` uses weak comparison; `*` matches any current representation. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}
