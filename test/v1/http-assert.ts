import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Compile } from 'typebox/compile';
import { V1Lead } from '../../src/schemas/v1-lead.js';
import { auth } from '../support/helpers.js';
import type { Model } from './fixtures.js';

export const V1 = '/api/pub/leads/';
export type OpName =
  | 'getLastLead'
  | 'getLastLeadTeam'
  | 'getLastLeadSubTeam'
  | 'getLeadsTimeRange'
  | 'getLeadsTimeRangeForTeam';
export const OP_NAMES: OpName[] = [
  'getLastLead',
  'getLastLeadTeam',
  'getLastLeadSubTeam',
  'getLeadsTimeRange',
  'getLeadsTimeRangeForTeam',
];

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';

export async function call(
  app: FastifyInstance,
  path: string,
  key?: string,
  options: { method?: Method; headers?: Record<string, string>; payload?: string } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: options.method ?? 'GET',
    url: path,
    headers: { ...(key === undefined ? {} : auth(key)), ...options.headers },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });
}

const checkV1Lead = Compile(V1Lead);

function assertNoNull(value: unknown, path: string): void {
  assert.notEqual(value, null, `${path} is null`);
  if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) assertNoNull(v, `${path}.${k}`);
}

/**
 * A 200 v1 answer: JSON content type, private/no-cache, deprecation signals, an array of leads
 * that each match the wire schema (C1 types) and its presence rules. Returns the leads.
 */
/** Every answer: no MIME sniffing, a request id, and no CORS grant (CORS is off). */
export function assertSecurityHeaders(res: LightMyRequestResponse): void {
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  assert.ok(!Object.keys(res.headers).some((h) => h.startsWith('access-control-')), 'no CORS headers');
}

export function assertLeads(res: LightMyRequestResponse): Record<string, unknown>[] {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'private, no-cache');
  assertDeprecation(res);
  assertSecurityHeaders(res);
  const body: unknown = JSON.parse(res.body);
  assert.ok(Array.isArray(body), 'body is a JSON array');
  for (const l of body as Record<string, unknown>[]) {
    const valid: boolean = checkV1Lead.Check(l);
    assert.ok(valid, `lead matches the v1 wire schema: ${JSON.stringify(l)}`);
    assertNoNull(l, 'lead');
    for (const m of ['id', 'epoch', 'time', 'userId', 'userEmail', 'userPid', 'isManual'])
      assert.ok(Object.hasOwn(l, m), `always-present member ${m}`);
    assert.ok(Number.isSafeInteger(l.epoch) && Number.isSafeInteger(l.userId));
    if (l.isLead === true) {
      assert.equal(typeof l.apptoapp, 'boolean', 'a connection lead always has apptoapp');
      assert.notEqual(l.isScan, true);
    } else {
      assert.equal(l.isScan, true, 'a lead is a connection or a scan');
      assert.equal(typeof l.isRoll, 'boolean', 'a scan lead always has isRoll');
    }
  }
  return body as Record<string, unknown>[];
}

/** Asserts that no lead in `leads` carries lat/long unless the model says it consented. */
export function assertConsent(model: Model, leads: Record<string, unknown>[]): void {
  for (const l of leads) {
    const rec = model.leads.find((r) => r.id === l.id && r.epoch === l.epoch && r.userId === l.userId);
    assert.ok(rec, `returned lead ${String(l.id)} is one the fixture imported`);
    if (rec.locationShared !== true) {
      assert.ok(!('lat' in l) && !('long' in l), `lead ${rec.id} without consent carries no lat/long`);
    }
  }
}

/** Identity of returned leads (`id@epoch`), for order comparisons. */
export const ids = (leads: { id?: unknown; epoch?: unknown }[]): string[] =>
  leads.map((l) => `${String(l.id)}@${String(l.epoch)}`);

export const DEFAULT_DEPRECATION = `@${Date.parse('2026-01-01T00:00:00Z') / 1000}`;

/** Link header → `rel` → target. */
export function links(res: LightMyRequestResponse): Map<string, string> {
  const out = new Map<string, string>();
  const header = String(res.headers.link ?? '');
  for (const part of header.split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>(.*)$/.exec(part.trim());
    const rel = m?.[2] === undefined ? undefined : /;\s*rel="([^"]+)"/.exec(m[2])?.[1];
    if (m?.[1] !== undefined && rel !== undefined) out.set(rel, m[1]);
  }
  return out;
}

/** C6: deprecation signals; `Sunset` and rel="sunset" only when a sunset is configured. */
export function assertDeprecation(res: LightMyRequestResponse, sunset: string | null = null): void {
  assert.equal(res.headers.deprecation, DEFAULT_DEPRECATION);
  const rels = links(res);
  assert.match(rels.get('deprecation') ?? '', /^https?:\/\//, 'Link rel="deprecation"');
  assert.match(rels.get('successor-version') ?? '', /^https?:\/\//, 'Link rel="successor-version"');
  if (sunset === null) {
    assert.equal(res.headers.sunset, undefined);
    assert.equal(rels.has('sunset'), false);
  } else {
    assert.equal(res.headers.sunset, sunset);
    assert.match(rels.get('sunset') ?? '', /^https?:\/\//, 'Link rel="sunset"');
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_params?: { name: string; reason: string }[];
}

/**
 * C5: an RFC 9457 problem with the given status, its instance the request id, deprecation
 * signals (C6), `WWW-Authenticate` on 401, and nothing of any lead in it.
 */
export function assertProblem(
  res: LightMyRequestResponse,
  status: number,
  code: string,
  model?: Model,
): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json\b/);
  assertDeprecation(res);
  assertSecurityHeaders(res);
  if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
  const p = JSON.parse(res.body) as Problem;
  assert.equal(p.type, `http://127.0.0.1:3000/problems/${code}`);
  assert.equal(typeof p.title, 'string');
  assert.ok(p.title.length > 0);
  assert.equal(p.status, status);
  assert.equal(typeof p.detail, 'string');
  assert.ok(p.detail.length > 0);
  assert.equal(p.instance, res.headers['x-request-id']);
  assert.ok(p.instance.length > 0);
  const allowed = new Set(['type', 'title', 'status', 'detail', 'instance', 'invalid_params']);
  for (const k of Object.keys(p)) assert.ok(allowed.has(k), `unexpected problem member ${k}`);
  assert.doesNotMatch(res.body, /"epoch"|"userEmail"|\bat \S+ \(|\/work\/|SELECT /);
  if (model !== undefined) {
    for (const l of model.leads) {
      if (typeof l.name === 'string' && l.name !== '') assert.ok(!res.body.includes(l.name), 'no lead name');
      assert.ok(!res.body.includes(model.member(l.userId).email), 'no collector e-mail');
    }
  }
  return p;
}

/** C5: `invalid_params` names exactly these parameters. */
export function assertInvalidParams(p: Problem, names: string[]): void {
  assert.ok(Array.isArray(p.invalid_params), 'invalid_params present');
  assert.deepEqual([...new Set(p.invalid_params.map((x) => x.name))].sort(), [...names].sort());
  for (const x of p.invalid_params) assert.ok(x.reason.length > 0, 'each names why');
}

/** RateLimit fields of an answer to an authenticated caller (C5). */
export function assertRateLimitFields(res: LightMyRequestResponse): void {
  assert.match(String(res.headers['ratelimit-policy']), /^"default";q=\d+;w=\d+$/);
  assert.match(String(res.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
}

/** Malformed `start`/`end` queries of operations 4 and 5, with the parameters each must name (C3). */
export const BAD_RANGE_QUERIES: [query: string, names: string[]][] = [
  ['', ['start']],
  ['end=5', ['start']],
  ['start=', ['start']],
  ['start', ['start']],
  ['start=1&start=2', ['start']],
  ['start=1&start=1', ['start']],
  ['start=1.5', ['start']],
  ['start=1.0', ['start']],
  ['start=-1', ['start']],
  ['start=%2B1', ['start']],
  ['start=+1', ['start']],
  ['start=1e3', ['start']],
  ['start=1E3', ['start']],
  ['start=abc', ['start']],
  ['start=0x10', ['start']],
  ['start=%201', ['start']],
  ['start=1%20', ['start']],
  ['start=Infinity', ['start']],
  ['start=NaN', ['start']],
  ['start=%EF%BC%91', ['start']], // fullwidth digit one
  ['start=8640000000000001', ['start']],
  ['start=99999999999999999999', ['start']],
  ['start=0&end=', ['end']],
  ['start=0&end=1&end=2', ['end']],
  ['start=0&end=1.5', ['end']],
  ['start=0&end=-1', ['end']],
  ['start=0&end=1e13', ['end']],
  ['start=0&end=8640000000000001', ['end']],
  ['start=10&end=9', ['end']],
  ['start=1719835200000&end=1719835199999', ['end']],
  ['start=abc&end=-1', ['start', 'end']],
  ['start=&end=', ['start', 'end']],
  ['end=x', ['start', 'end']],
];

/** Malformed `subTeamId` queries of operation 3 (C3). */
export const BAD_SUBTEAM_QUERIES: string[] = [
  '',
  'subTeamId=',
  'subTeamId',
  'subTeamId=0',
  'subTeamId=000',
  'subTeamId=-1',
  'subTeamId=abc',
  'subTeamId=1.5',
  'subTeamId=1e3',
  'subTeamId=%2B2011',
  'subTeamId=2011&subTeamId=2011',
  'subTeamId=2011&subTeamId=2012',
  'subTeamId=0x7DB',
  'subteamid=2011',
  'subTeamId=%202011',
];
