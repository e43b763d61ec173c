import { Readable } from 'node:stream';
import { AUDIT_ACTIONS, type AuditAction } from '../../audit/audit.port.js';
import { type AuditQuery, exportAudit, listAudit, MAX_AUDIT_PAGE } from '../../audit/list-audit.js';
import { auditToWire } from '../../audit/wire.js';
import { requireTeamAdmin } from '../../directory/access.js';
import { fingerprint } from '../../leads/cursor.js';
import { type InvalidParam, invalidParams } from '../../shared/errors.js';
import { parseInstant } from '../../shared/instant.js';
import { StreamedAnswer, type V2Handler } from './handler.js';

export const AUDIT_PATH = '/api/pub/v2/audit';
const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';
const DEFAULT_LIMIT = 100;
const QUERY = new Set(['limit', 'cursor', 'action', 'since', 'format']);

/**
 * GET /api/pub/v2/audit (docs/privacy.md "Audit log"): the team's audit records, newest first,
 * for team admins — a page and a sealed cursor for the next one, or with `format=ndjson` every
 * matching record, one JSON object a line, streamed.
 */
export const listAuditRecords: V2Handler = async ({ caller, store, cursors }, request) => {
  requireTeamAdmin(caller);
  const { filters, limit, cursor, ndjson } = auditQuery(request.query as Record<string, unknown>);
  const by = { caller };
  if (ndjson) {
    const lines = async function* () {
      for await (const record of exportAudit(store, by, filters))
        yield `${JSON.stringify(auditToWire(record))}\n`;
    };
    return new StreamedAnswer(NDJSON_TYPE, Readable.from(lines()));
  }
  const codec = await cursors();
  const print = fingerprint(filters);
  const before =
    cursor === undefined ? null : (codec.decode(cursor, 'audit', caller.teamId, print) as number);
  const page = await listAudit(store, by, { ...filters, before, limit });
  const last = page.records.at(-1);
  const nextCursor =
    page.more && last !== undefined ? codec.encode('audit', caller.teamId, print, last.id) : null;
  return { data: { records: page.records.map(auditToWire), nextCursor } };
};

/** The query string, checked: every bad parameter named in one 400. */
function auditQuery(query: Record<string, unknown>): {
  filters: AuditQuery;
  limit: number;
  cursor: string | undefined;
  ndjson: boolean;
} {
  const bad: InvalidParam[] = [];
  for (const name of Object.keys(query))
    if (!QUERY.has(name)) bad.push({ name, reason: 'not a parameter of this operation' });
  const text = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') bad.push({ name, reason: 'give it once, not empty' });
    return typeof v === 'string' ? v : undefined;
  };
  const [limitText, cursor, action, sinceText, format] = ['limit', 'cursor', 'action', 'since', 'format'].map(
    text,
  );
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action))
    bad.push({ name: 'action', reason: `one of ${AUDIT_ACTIONS.join(', ')}` });
  const since = sinceText === undefined ? undefined : (parseInstant(sinceText) ?? undefined);
  if (sinceText !== undefined && since === undefined)
    bad.push({ name: 'since', reason: 'an ISO-8601 date and time with its offset' });
  const limit =
    limitText === undefined ? DEFAULT_LIMIT : /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (!(limit >= 1 && limit <= MAX_AUDIT_PAGE))
    bad.push({ name: 'limit', reason: `an integer from 1 to ${MAX_AUDIT_PAGE}` });
  if (format !== undefined && format !== 'ndjson') bad.push({ name: 'format', reason: 'ndjson, or absent' });
  if (format === 'ndjson' && (cursor !== undefined || limitText !== undefined))
    bad.push({ name: 'format', reason: 'the export holds every record: no limit or cursor with it' });
  if (bad.length > 0) throw invalidParams(bad);
  const filters: AuditQuery = {
    ...(action === undefined ? {} : { action: action as AuditAction }),
    ...(since === undefined ? {} : { since }),
  };
  return { filters, limit, cursor, ndjson: format === 'ndjson' };
}
