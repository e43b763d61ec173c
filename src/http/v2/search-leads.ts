import { recordBulkRead } from '../../audit/record-audit.js';
import { searchScope } from '../../directory/access.js';
import { fingerprint } from '../../leads/cursor.js';
import type { LeadFilter, SearchPosition, TextClause } from '../../leads/leads.port.js';
import { FUZZY_MIN_LENGTH, fold, words } from '../../leads/text.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { SearchBody } from '../../schemas/v2.js';
import { type InvalidParam, invalidParams } from '../../shared/errors.js';
import { parseInstant } from '../../shared/instant.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';

export const DEFAULT_LIMIT = 100;

/**
 * POST /api/pub/v2/leads/search: one scope, optional conditions, a keyset page in capture-time
 * order (DESC, newest first, by default) and a sealed cursor for the next page; `nextCursor` is
 * null only on the last page. A page of more than LEADLINE_AUDIT_BULK_READ leads is audited.
 */
export const searchLeads: V2Handler = async ({ caller, config, store, cursors, now }, request) => {
  const body = validBody(request, SearchBody);
  assertStorableBody(body);
  const f = body.filters;
  const scope = await searchScope(caller, f, store.directory);
  const bad: InvalidParam[] = [];
  const start = instant(f.startTime, '/filters/startTime', bad);
  const end = instant(f.endTime, '/filters/endTime', bad);
  if (start !== null && end !== null && end < start)
    bad.push({ name: '/filters/endTime', reason: 'before startTime' });
  const text: TextClause[] = (body.query ?? []).map((q, i) => {
    const value = fold(q.value);
    if (q.match === 'FUZZY' && words(value).join('').length < FUZZY_MIN_LENGTH) {
      bad.push({
        name: `/query/${i}/value`,
        reason: `FUZZY needs at least ${FUZZY_MIN_LENGTH} letters or digits`,
      });
    }
    return { fields: q.fields, value, match: q.match };
  });
  if (bad.length > 0) throw invalidParams(bad);

  const filter: LeadFilter = {
    scope,
    start,
    end,
    sources: f.leadSource === undefined ? null : [...f.leadSource].sort(),
    hasEmail: f.hasEmail ?? null,
    text,
  };
  const direction = body.sort?.direction ?? 'DESC';
  const print = fingerprint({ filter, direction });
  const codec = await cursors();
  const after =
    body.cursor === undefined
      ? null
      : (codec.decode(body.cursor, 'search', caller.teamId, print, '/cursor') as SearchPosition);
  const limit = body.limit ?? DEFAULT_LIMIT;
  const found = await store.leads.search(filter, direction, after, limit + 1);
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor =
    found.length > limit && last !== undefined
      ? codec.encode('search', caller.teamId, print, { epoch: last.epoch, seq: last.seq })
      : null;
  await recordBulkRead(store, {
    caller,
    operation: 'searchLeads',
    count: page.length,
    threshold: config.auditBulkRead,
    at: now,
  });
  return { data: { leads: page.map(leadToV2), nextCursor } };
};

/** Epoch ms of an ISO-8601 instant the schema let through; a date that does not exist is a 400. */
function instant(value: string | undefined, name: string, bad: InvalidParam[]): number | null {
  if (value === undefined) return null;
  const ms = parseInstant(value);
  if (ms === null) bad.push({ name, reason: 'not a date and time that exists' });
  return ms;
}
