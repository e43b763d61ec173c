import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Compile } from 'typebox/compile';
import { V2Lead } from '../../src/schemas/v2.js';
import { V2Me } from '../../src/schemas/v2-me.js';
import { auth } from '../support/helpers.js';
import { assertSecurityHeaders, type Problem } from '../v1/http-assert.js';

export const V2 = '/api/pub/v2/leads';
const checkLead = Compile(V2Lead);
const checkMe = Compile(V2Me);

export interface SearchPage {
  leads: V2Lead[];
  nextCursor: string | null;
}

export async function post(
  app: FastifyInstance,
  path: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : auth(key)), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function get(app: FastifyInstance, path: string, key?: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: path, headers: key === undefined ? {} : auth(key) });
}

/** A 2xx v2 answer: JSON, no-store, no deprecation signals, every lead (or the `me` body) matching its v2 schema. */
export function assertV2Ok(res: LightMyRequestResponse, status = 200): { data: unknown } {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers.deprecation, undefined, 'v2 is not deprecated');
  assertSecurityHeaders(res);
  const body = JSON.parse(res.body) as { data: unknown };
  // GET /api/pub/v2/me answers who the key is, not leads.
  if (res.raw.req.url?.startsWith('/api/pub/v2/me') === true) {
    assert.ok(checkMe.Check(body), `v2 me shape: ${JSON.stringify([...checkMe.Errors(body)][0])}`);
    return body;
  }
  // A page of leads, the groups of duplicates, or one lead.
  const data = body.data as { leads?: unknown[]; groups?: { leads: unknown[] }[] };
  const leads = Array.isArray(data.leads)
    ? data.leads
    : Array.isArray(data.groups)
      ? data.groups.flatMap((g) => g.leads)
      : [data];
  for (const l of leads)
    assert.ok(checkLead.Check(l), `v2 lead shape: ${JSON.stringify([...checkLead.Errors(l)][0])}`);
  return body;
}

export async function search(app: FastifyInstance, key: string, body: unknown): Promise<SearchPage> {
  const res = await post(app, `${V2}/search`, key, body);
  return assertV2Ok(res).data as SearchPage;
}

/** Every page of a search, following nextCursor; fails on a page after a null cursor's end. */
export async function searchAll(
  app: FastifyInstance,
  key: string,
  body: Record<string, unknown>,
  onPage?: (page: SearchPage, n: number) => Promise<void>,
): Promise<V2Lead[]> {
  const out: V2Lead[] = [];
  let cursor: string | null = null;
  for (let n = 0; ; n++) {
    const page: SearchPage = await search(app, key, cursor === null ? body : { ...body, cursor });
    out.push(...page.leads);
    if (onPage !== undefined) await onPage(page, n);
    if (page.nextCursor === null) return out;
    assert.ok(page.leads.length > 0, 'a page with a next cursor is never empty');
    cursor = page.nextCursor;
    assert.ok(n < 100_000, 'search pages end');
  }
}

/** A v2 problem: problem+json, the code's type, instance = request id, no deprecation signals. */
export function assertV2Problem(res: LightMyRequestResponse, status: number, code: string): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json\b/);
  assert.equal(res.headers.deprecation, undefined);
  assertSecurityHeaders(res);
  if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
  const p = JSON.parse(res.body) as Problem;
  assert.equal(p.type, `http://127.0.0.1:3000/problems/${code}`);
  assert.equal(p.status, status);
  assert.ok(p.title.length > 0 && p.detail.length > 0);
  assert.equal(p.instance, res.headers['x-request-id']);
  assert.doesNotMatch(res.body, /\bat \S+ \(|\/work\/|SELECT |leadId"/);
  return p;
}

export const legacyIds = (leads: { legacyLeadId: string }[]): string[] => leads.map((l) => l.legacyLeadId);
