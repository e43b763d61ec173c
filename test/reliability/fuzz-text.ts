import fc from 'fast-check';
import type { InjectOptions } from 'fastify';

/**
 * R12: control characters (C0, DEL, C1's NEL, the line separator) and surrogates, paired and
 * lone, alone or inside text — NUL and lone surrogates are what PostgreSQL cannot store.
 */
const controlChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u2028',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d\ude00',
);
export const controlText = fc
  .array(fc.oneof(controlChar, fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

/** A creation body well-formed but for its text, so that the text reaches the store. */
export const createWithText = fc.record(
  {
    leadSource: fc.constant('MANUAL'),
    userPid: controlText,
    systemFields: fc.record(
      { fullName: controlText, note: controlText, location: fc.record({ label: controlText }) },
      { requiredKeys: ['fullName'] },
    ),
  },
  { requiredKeys: ['leadSource', 'systemFields'] },
);

/** A search of member 1011's own leads by text, well-formed but for that text. */
export const searchWithText = fc.record({
  filters: fc.constant({ assignedMemberIds: [1011] }),
  query: fc.tuple(
    fc.record({
      fields: fc.constant(['fullName', 'note']),
      value: controlText,
      match: fc.constantFrom('EXACT', 'FUZZY'),
    }),
  ),
});

/** Percent-encodes; a lone surrogate becomes its (invalid UTF-8) three bytes, %ED%A0%80 and the like. */
export function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[\uD800-\uDFFF]/g, '%ED%A0%80').replace(/[^%\w.~-]/g, (c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        return '%ED%B0%80';
      }
    });
  }
}

export interface TextRequest {
  options: InjectOptions;
  /** The creation body, when the request creates a lead. */
  created: { systemFields: Record<string, unknown> } | null;
}

/**
 * Requests with the valid key whose only oddity is their text: v2 creation and search bodies,
 * and query strings of the change feed and the v1 reads.
 */
export function textRequestArbitrary(validKey: string): fc.Arbitrary<TextRequest> {
  const headers = { authorization: `Bearer ${validKey}`, 'content-type': 'application/json' };
  const post = (url: string, body: unknown): InjectOptions => ({
    method: 'POST',
    url,
    headers,
    payload: JSON.stringify(body),
  });
  const query = fc
    .tuple(
      fc.constantFrom(
        '/api/pub/v2/leads/changes?cursor=',
        '/api/pub/v2/leads/changes?limit=',
        '/api/pub/leads/getLeadsTimeRange?end=2000000000000&start=',
        '/api/pub/leads/getLastLeadSubTeam?subTeamId=',
      ),
      controlText,
    )
    .map(
      ([url, text]): TextRequest => ({
        options: { method: 'GET', url: `${url}${enc(text)}`, headers },
        created: null,
      }),
    );
  return fc.oneof(
    createWithText.map(
      (body): TextRequest => ({
        options: post('/api/pub/v2/leads', body),
        created: body as { systemFields: Record<string, unknown> },
      }),
    ),
    searchWithText.map(
      (body): TextRequest => ({ options: post('/api/pub/v2/leads/search', body), created: null }),
    ),
    query,
  );
}
