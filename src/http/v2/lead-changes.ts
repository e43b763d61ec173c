import { visibleScope } from '../../directory/access.js';
import { feedEntryToV2 } from '../../leads/v2-wire.js';
import { invalidParams } from '../../shared/errors.js';
import type { V2Handler } from './handler.js';
import { DEFAULT_LIMIT } from './search-leads.js';

/**
 * GET /api/pub/v2/leads/changes: every lead the caller may see, in the order the service stored
 * them. `nextCursor` is given after a full page (more may follow at once) and is null once a
 * page comes back short (caught up); `pollCursor` is always given and is where to resume later,
 * so a poller following the feed sees every lead stored after its last page — late uploads
 * included.
 */
export const leadChanges: V2Handler = async ({ caller, store, cursors }, request) => {
  const query = request.query as Record<string, unknown>;
  const limit = parseLimit(query.limit);
  const cursor = single(query.cursor, 'cursor');
  const codec = await cursors();
  // The feed has no filters: its cursors are bound to the team alone.
  const print = 'changes';
  const after =
    cursor === undefined ? null : (codec.decode(cursor, 'changes', caller.teamId, print) as string);
  const scope = await visibleScope(caller, store.directory);
  const page = await store.leads.changes(scope, after, limit);
  const next = codec.encode('changes', caller.teamId, print, page.next);
  // A full page may have more behind it: go on at once. A short page means caught up.
  const full = page.leads.length === limit;
  return { data: { leads: page.leads.map(feedEntryToV2), nextCursor: full ? next : null, pollCursor: next } };
};

export function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalidParams([{ name, reason: 'give it once, not empty' }]);
  return value;
}

export function parseLimit(value: unknown): number {
  const text = single(value, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  const n = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) throw invalidParams([{ name: 'limit', reason: 'an integer from 1 to 1000' }]);
  return n;
}
