import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { displayPrefix, hashesMatch, hashKey, isWellFormedKey } from '../src/domain/api-key.js';
import { leadToV1Json } from '../src/domain/v1-wire.js';
import { type LeadRow, toLead } from '../src/storage/rows.js';
import { LEAD_QUERIES } from '../src/storage/sqlite/sqlite-leads.js';

/**
 * Reference point for P1: bare node:http doing getLastLead's work and nothing else — the key
 * checked against the store on every request (shape, SHA-256, constant-time compare, revoked,
 * expired), the member's last lead read with the same query, the same v1 body. No framework, no
 * usage ledger, quota, retirement checks, ETag, security or deprecation headers, or logging.
 *
 *   node --import tsx bench/reference-same-work.ts <port> <sqlite file>
 */
const [portArg, file] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: reference-same-work.ts <port> <sqlite file>');
const db = new Database(file, { readonly: true });
const keyStmt = db.prepare(`SELECT k.hash, k.member_id, m.team_id, k.revoked_at, k.expires_at
  FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.display = ?`);
const lastStmt = db.prepare(LEAD_QUERIES.lastOfMember).raw(true);

interface KeyHit {
  hash: Buffer;
  member_id: number;
  team_id: number;
  revoked_at: number | null;
  expires_at: number | null;
}

function send(res: import('node:http').ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

createServer((req, res) => {
  if (req.url === '/healthz') return send(res, 200, '{}');
  const presented = /^(?:bearer\s+)?(\S+)$/i.exec(req.headers.authorization?.trim() ?? '')?.[1];
  if (presented === undefined || !isWellFormedKey(presented)) return send(res, 401, '{}');
  const hash = hashKey(presented);
  const now = Date.now();
  const key = (keyStmt.all(displayPrefix(presented)) as KeyHit[]).find((k) => hashesMatch(hash, k.hash));
  if (key === undefined || key.revoked_at !== null || (key.expires_at !== null && key.expires_at <= now))
    return send(res, 401, '{}');
  const row = lastStmt.get(key.team_id, key.member_id) as LeadRow | undefined;
  send(res, 200, row === undefined ? '[]' : `[${leadToV1Json(toLead(row))}]`);
}).listen(Number(portArg), '127.0.0.1');
