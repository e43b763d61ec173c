import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoredLead } from '../../leads/lead.js';
import { AppError, invalidParams } from '../../shared/errors.js';

/**
 * A lead's version on the wire (docs/v2.md "Update a lead", "Versions"): every answer that is one
 * lead carries `ETag: "<version>"`, and a change names the version it was made from in
 * `If-Match`. The version counts the lead's changes (1 when stored), so the tag is strong.
 */

export function sendVersion(reply: FastifyReply, lead: StoredLead): void {
  reply.header('etag', `"${lead.version}"`);
}

const STRONG_TAG = /^"(\d{1,15})"$/;

/**
 * The version `If-Match` names: a number, or null for none (`*`, or no header when the service
 * does not require one). Without the header while `LEADLINE_REQUIRE_IF_MATCH` is on: `428`.
 * One strong tag as the lead's ETag gives it, or `*`; anything else (a weak tag, a list) is a
 * 400 naming If-Match (**leadline decision**: a version is one number).
 */
export function ifMatchOf(request: FastifyRequest, required: boolean): number | null {
  const header = request.headers['if-match'];
  if (header === undefined) {
    if (required)
      throw new AppError(
        'precondition-required',
        'This service changes a lead only with If-Match: send the ETag of the lead as you last read it.',
      );
    return null;
  }
  const value = typeof header === 'string' ? header.trim() : '';
  if (value === '*') return null;
  const m = STRONG_TAG.exec(value);
  if (m === null)
    throw invalidParams([
      { name: 'If-Match', reason: 'one entity tag as the lead’s ETag gives it, e.g. "3", or *' },
    ]);
  return Number(m[1]);
}
