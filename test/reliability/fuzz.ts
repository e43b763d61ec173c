import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { controlText, createWithText, enc, searchWithText } from './fuzz-text.js';

/**
 * R2: generated requests of every kind a careless or hostile client sends — odd methods and
 * paths, query strings, headers (malformed Authorization above all), v2 bodies, huge and deeply
 * nested JSON, bytes that are not UTF-8 — each checked: no 5xx, every error problem+json.
 */
const PATHS = [
  '/api/pub/leads/getLastLead',
  '/api/pub/leads/getLastLeadTeam',
  '/api/pub/leads/getLastLeadSubTeam',
  '/api/pub/leads/getLeadsTimeRange',
  '/api/pub/leads/getLeadsTimeRangeForTeam',
  '/api/pub/v2/leads/search',
  '/api/pub/v2/leads/changes',
  '/api/pub/v2/leads',
  '/api/pub/v2/leads/01a1fd3e-7287-788c-93f2-883ca47beb3b',
  '/api/admin/v1/report',
  '/healthz',
  '/readyz',
  '/openapi.json',
  '/docs/v2',
  '/problems/not-found',
  '/admin',
];
const PARAMS = ['start', 'end', 'subTeamId', 'limit', 'cursor', 'api_key', 'key', 'email'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Strings a parser may choke on. */
const nasty = fc.oneof(
  controlText,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '+1',
    '1e3',
    '0x10',
    '1.5',
    '9007199254740993',
    '8640000000000001',
    '99999999999999999999999999',
    'NaN',
    'Infinity',
    'null',
    '[]',
    '{}',
    '%00',
    '%ZZ',
    '%C0%AF',
    '%FF%FE',
    '\u0000',
    '../../etc/passwd',
    "' OR 1=1 --",
    '<script>',
    '\uD800',
    'a'.repeat(5000),
  ),
);

export function authorizationArbitrary(validKey: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(`Bearer ${validKey}`),
    fc.constant(validKey),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      `bearer ${validKey}`,
      'Basic dXNlcjpwYXNz',
      `Bearer ${validKey} extra`,
      `Bearer  ${validKey}`,
      `Bearer ${validKey.slice(0, -1)}`,
      `Bearer ${validKey}x`,
      `Bearer ${validKey.toUpperCase()}`,
      `Bearer ${'x'.repeat(8000)}`,
      'Bearer ll_',
      'Bearer ll_0_',
      'Bearer \u00ff\u00fe',
      'Token abc',
    ),
    fc.string({ maxLength: 100 }).map((s) => `Bearer ${s}`),
    fc.string({ maxLength: 100 }),
  );
}

const json = fc.jsonValue({ maxDepth: 4 });

/** A v2 body: well-formed most of the time, with generated values put in random places. */
function v2Body(): fc.Arbitrary<unknown> {
  const id = fc.oneof(fc.integer(), fc.constantFrom(101, 102, 103, 2011, 1011, 0, -1, 2 ** 53), json);
  const filters = fc.record(
    {
      teamId: id,
      subteamIds: fc.oneof(fc.array(id, { maxLength: 5 }), json),
      assignedMemberIds: fc.oneof(fc.array(id, { maxLength: 120 }), json),
      startTime: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        nasty,
        fc.constantFrom(
          '2025-02-30T00:00:00Z',
          '2024-07-01T24:00Z',
          '2024-07-01T12:00:60Z',
          '+275760-09-13T00:00:00Z',
        ),
      ),
      endTime: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        nasty,
      ),
      leadSource: fc.oneof(fc.array(fc.constantFrom('MANUAL', 'APP_TO_APP', 'X'), { maxLength: 4 }), json),
      hasEmail: fc.oneof(fc.boolean(), json),
      extra: json,
    },
    { requiredKeys: [] },
  );
  const search = fc.record(
    {
      filters: fc.oneof({ weight: 5, arbitrary: filters }, json),
      query: fc.oneof(
        fc.array(
          fc.record(
            {
              fields: fc.array(fc.constantFrom('fullName', 'email', 'note', 'nope'), { maxLength: 4 }),
              value: nasty,
              match: fc.constantFrom('EXACT', 'FUZZY', 'exact', ''),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 12 },
        ),
        json,
      ),
      sort: fc.oneof(
        fc.record({
          field: fc.constantFrom('timestamp', 'x'),
          direction: fc.constantFrom('ASC', 'DESC', 'up'),
        }),
        json,
      ),
      limit: fc.oneof(fc.integer(), fc.double(), json),
      cursor: fc.oneof(nasty, fc.base64String({ maxLength: 200 })),
    },
    { requiredKeys: [] },
  );
  const create = fc.record(
    {
      leadSource: fc.oneof(fc.constantFrom('MANUAL', 'BUSINESS_CARD_SCAN', 'QR_CODE_SCAN'), nasty),
      captureDatetime: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        nasty,
      ),
      locationShared: fc.oneof(fc.boolean(), json),
      userPid: fc.oneof(nasty, json),
      systemFields: fc.oneof(
        fc.record(
          {
            fullName: fc.oneof(nasty, fc.constant(null)),
            email: nasty,
            phone: nasty,
            note: fc.oneof(nasty, fc.constant('n'.repeat(10_001))),
            location: fc.oneof(
              fc.record(
                {
                  latitude: fc.oneof(fc.double(), json),
                  longitude: fc.oneof(fc.double(), json),
                  label: nasty,
                },
                { requiredKeys: [] },
              ),
              json,
            ),
            nope: json,
          },
          { requiredKeys: [] },
        ),
        json,
      ),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: search },
    { weight: 2, arbitrary: create },
    { weight: 1, arbitrary: createWithText },
    { weight: 1, arbitrary: searchWithText },
    { weight: 1, arbitrary: json },
  );
}

/** Payloads as bytes: JSON text, huge, deeply nested, broken, not UTF-8. */
function payload(): fc.Arbitrary<string | Buffer | undefined> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: v2Body().map((b) => JSON.stringify(b)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 64 * 1024 - 16, max: 200 * 1024 })
        .map((n) => `{"filters":{"teamId":101},"cursor":"${'a'.repeat(n)}"}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100, max: 32_000 })
        .map((d) => `{"filters":${'['.repeat(d)}${']'.repeat(d)}}`),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 100, max: 20_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 30_000 }).map((d) => '['.repeat(d)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(v2Body(), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 }))
        .map(([b, at, bytes]) => {
          const text = Buffer.from(JSON.stringify(b));
          const i = at % (text.length + 1);
          return Buffer.concat([text.subarray(0, i), Buffer.from([0xff, 0xc0, ...bytes]), text.subarray(i)]);
        }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"__proto__":{"x":1},"filters":{"teamId":101}}',
        '{"constructor":{"prototype":{}}}',
        '{',
        'null',
        '"x"',
        '1e999',
        '{"filters":{"teamId":1e999}}',
      ),
    },
  );
}

function queryString(): fc.Arbitrary<string> {
  const pair = fc.tuple(fc.oneof(fc.constantFrom(...PARAMS), nasty), nasty);
  return fc
    .tuple(fc.array(pair, { maxLength: 5 }), fc.boolean())
    .map(([pairs, raw]) =>
      pairs
        .map(([k, v]) =>
          raw ? `${k.replace(/[#\s]/g, '')}=${v.replace(/[#\s]/g, '')}` : `${enc(k)}=${enc(v)}`,
        )
        .join('&'),
    )
    .filter((q) => !/[\uD800-\uDFFF]/.test(q));
}

export function requestArbitrary(validKey: string): fc.Arbitrary<InjectOptions> {
  const path = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...PATHS) },
    { weight: 1, arbitrary: fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PATHS), nasty).map(([p, s]) => `${p}/${enc(s)}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '/api/pub/v2/leads/%ZZ',
        '/api/pub/leads/%C0%AF',
        '//api//pub//leads//getLastLead//',
        `/api/pub/v2/leads/${'f'.repeat(5000)}`,
      ),
    },
  );
  const headerValue = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('\u00ff', '*', '"x"', 'W/"1"'));
  const contentType = fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/problem+json',
    '',
    'application/json, text/plain',
  );
  return fc
    .record({
      method: fc.constantFrom(...METHODS),
      path,
      query: fc.option(queryString(), { nil: undefined }),
      authorization: authorizationArbitrary(validKey),
      contentType,
      idempotencyKey: fc.option(headerValue, { nil: undefined }),
      ifNoneMatch: fc.option(headerValue, { nil: undefined }),
      accept: fc.option(headerValue, { nil: undefined }),
      forwarded: fc.option(headerValue, { nil: undefined }),
      payload: payload(),
      remote: fc.ipV4(),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.authorization !== undefined) headers.authorization = r.authorization;
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
      if (r.ifNoneMatch !== undefined) headers['if-none-match'] = r.ifNoneMatch;
      if (r.accept !== undefined) headers.accept = r.accept;
      if (r.forwarded !== undefined) headers['x-forwarded-for'] = r.forwarded;
      const withBody = r.payload !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
      return {
        method: r.method,
        url: r.query === undefined ? r.path : `${r.path}?${r.query}`,
        headers,
        remoteAddress: r.remote,
        ...(withBody ? { payload: r.payload } : {}),
      } as InjectOptions;
    });
}

export interface FuzzStats {
  generated: number;
  sent: number;
  /** Requests light-my-request itself refused to build (an invalid header value, say): never reached the app. */
  refusedByClient: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  /** Error answers (4xx/5xx, HEAD aside) that were not application/problem+json with a matching status. */
  notProblemJson: number;
  /** The not-problem+json answers by status and the `code` member of their body. */
  notProblemJsonKinds: Record<string, number>;
  /** Answers without `X-Content-Type-Options: nosniff`. */
  missingNosniff: number;
  /** Those by status and body `code` (or, without a body, content type). */
  missingNosniffKinds: Record<string, number>;
  /** Answers with any `Access-Control-*` header: CORS is off by default. */
  corsHeaders: number;
  /** 2xx answers under /api/ that a shared cache could keep (neither `no-store` nor `private`). */
  cacheablePersonal: number;
  examples: string[];
}

/** Checks one answer: no 5xx; an error is problem+json whose `status` is the HTTP status. */
export function checkAnswer(
  res: LightMyRequestResponse,
  method: string,
  stats: FuzzStats,
  what: string,
): void {
  stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
  const note = (s: string) => {
    if (stats.examples.length < 20)
      stats.examples.push(`${s}: ${what.slice(0, 300)} → ${res.body.slice(0, 300)}`);
  };
  if (res.headers['x-content-type-options'] !== 'nosniff') {
    stats.missingNosniff++;
    let code = `ct:${res.headers['content-type']}`;
    try {
      code = String((JSON.parse(res.body) as { code?: unknown }).code);
    } catch {}
    const kind = `${res.statusCode} ${code}`;
    stats.missingNosniffKinds[kind] = (stats.missingNosniffKinds[kind] ?? 0) + 1;
    note(`no nosniff (${res.statusCode})`);
  }
  if (Object.keys(res.headers).some((h) => h.startsWith('access-control-'))) {
    stats.corsHeaders++;
    note('CORS header');
  }
  if (
    res.statusCode < 300 &&
    what.includes(' /api/') &&
    !/no-store|private/.test(String(res.headers['cache-control']))
  ) {
    stats.cacheablePersonal++;
    note(`cacheable (${res.headers['cache-control']})`);
  }
  if (res.statusCode >= 500) {
    stats.serverErrors++;
    note(`${res.statusCode}`);
  }
  if (res.statusCode >= 400 && method !== 'HEAD') {
    let ok = /^application\/problem\+json\b/.test(String(res.headers['content-type']));
    if (ok) {
      try {
        const p = JSON.parse(res.body) as { status?: unknown; type?: unknown; title?: unknown };
        ok = p.status === res.statusCode && typeof p.type === 'string' && typeof p.title === 'string';
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      stats.notProblemJson++;
      let code = '?';
      try {
        code = String((JSON.parse(res.body) as { code?: unknown }).code);
      } catch {}
      const kind = `${res.statusCode} ${code}`;
      stats.notProblemJsonKinds[kind] = (stats.notProblemJsonKinds[kind] ?? 0) + 1;
      note(`not problem+json (${res.statusCode}, ${res.headers['content-type']})`);
    }
  }
}

export function newStats(): FuzzStats {
  return {
    generated: 0,
    sent: 0,
    refusedByClient: 0,
    byStatus: {},
    serverErrors: 0,
    notProblemJson: 0,
    notProblemJsonKinds: {},
    missingNosniff: 0,
    missingNosniffKinds: {},
    corsHeaders: 0,
    cacheablePersonal: 0,
    examples: [],
  };
}

/** `n` generated requests through inject, in seeded chunks (the same seed gives the same requests). */
export async function runInjectFuzz(
  app: FastifyInstance,
  validKey: string,
  n: number,
  seed: number,
): Promise<FuzzStats> {
  const stats = newStats();
  const arb = requestArbitrary(validKey);
  const CHUNK = 2000;
  for (let done = 0; done < n; done += CHUNK) {
    const batch = fc.sample(arb, { numRuns: Math.min(CHUNK, n - done), seed: seed + done });
    for (const req of batch) {
      stats.generated++;
      let res: LightMyRequestResponse;
      try {
        res = await app.inject(req);
      } catch (err) {
        stats.refusedByClient++;
        if (
          !/Invalid character|header content|ERR_INVALID_CHAR|ERR_HTTP_INVALID_HEADER_VALUE/.test(String(err))
        )
          stats.examples.push(
            `inject threw ${String((err as Error).stack).slice(0, 600)} for ${req.method} ${req.url} ${JSON.stringify(req.headers)}`,
          );
        continue;
      }
      stats.sent++;
      const what = `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${String(req.payload ?? '').slice(0, 200)}`;
      checkAnswer(res, String(req.method), stats, what);
    }
  }
  return stats;
}
