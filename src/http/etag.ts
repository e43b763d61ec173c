import { createHash } from 'node:crypto';

/**
 * Bodies answered recently, with their validators: a lead read again and again (a poller's
 * getLastLead) is digested once (bench/RESULTS.md, "P1 in instructions"). Keyed by the body itself, so a
 * changed body can never get an old tag. Bounded: emptied when full.
 */
const tags = new Map<string, string>();
const TAGS_REMEMBERED = 1_000;

/**
 * The last body answered for each lead, by the lead's id, with its tag: a poller's body is
 * compared with the last one (a copy of bytes) instead of hashed again to be looked up among
 * all bodies (every character read). The tag is still the body's: a lead whose body changed
 * gets its new digest. Bounded: emptied when full.
 */
const lastOfLead = new Map<string, { body: string; tag: string }>();

/**
 * A strong validator for a small body: a digest of its bytes. `leadId`, when the body is one
 * lead's answer: where its last body and tag are kept.
 */
export function etagOf(body: string, leadId?: string): string {
  if (leadId === undefined) return tagOf(body);
  const last = lastOfLead.get(leadId);
  if (last !== undefined && last.body === body) return last.tag;
  const tag = tagOf(body);
  if (lastOfLead.size >= TAGS_REMEMBERED) lastOfLead.clear();
  lastOfLead.set(leadId, { body, tag });
  return tag;
}

function tagOf(body: string): string {
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
