import { DEGREES_PATTERN, NUMERIC_TEXT_PATTERN } from './v1-lead.js';
import { ISO_WITH_OFFSET } from './v2.js';

/**
 * Schema validation errors in words — the one formatter behind the API's `400`s, the import's
 * `file:line: reason` and the CLI, so a person meets the same sentence everywhere:
 * `filters is required`, `sort.field must be one of: timestamp`,
 * `unknown field "teamid" in filters — did you mean "teamId"?`. A field is named by its dotted
 * path (`query.0.fields`); `pointer` keeps the JSON pointer the API's `invalid_params` name.
 */
export interface SchemaError {
  keyword?: string;
  schemaPath?: string;
  instancePath: string;
  params: unknown;
  message: string;
}

export interface Problem {
  /** JSON pointer of the field (`/sort/field`); `/` for the whole value. */
  pointer: string;
  /** What is wrong with it, without its name: `must be one of: timestamp`. */
  reason: string;
  /** The whole sentence: `sort.field must be one of: timestamp`. */
  sentence: string;
}

/** Patterns that have a name a person knows; any other is shown as the pattern. */
const PATTERN_WORDS: Record<string, string> = {
  [ISO_WITH_OFFSET]: 'an ISO-8601 time with an offset, e.g. 2024-07-01T12:00:00Z',
  [NUMERIC_TEXT_PATTERN]: 'numeric text such as "12" or "3.5" (or "")',
  [DEGREES_PATTERN]: 'decimal degrees such as "52.52" or "-13.4"',
  '^[^@\\s]+@[^@\\s]+$': 'an e-mail address',
};

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Messages that only say "a sibling failed": dropped when a path has a better reason. */
const NOISE = new Set(['boolean', 'anyOf', 'oneOf', 'allOf', 'not', 'if']);

const dotted = (pointer: string) => pointer.split('/').slice(1).join('.');
const sentence = (pointer: string, reason: string) =>
  pointer === '' || pointer === '/' ? `the body ${reason}` : `${dotted(pointer)} ${reason}`;

/** `schema` is the schema the errors came from: it names the fields an unknown one may have meant. */
export function describeErrors(schema: unknown, errors: SchemaError[]): Problem[] {
  const unknown = unknownFields(schema, errors);
  if (unknown.length > 0) return unknown;
  const reasons = new Map<string, { allowed: unknown[]; types: string[]; other: string[] }>();
  const at = (pointer: string) => {
    const entry = reasons.get(pointer) ?? { allowed: [], types: [], other: [] };
    reasons.set(pointer, entry);
    return entry;
  };
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'required') {
      for (const name of (p.requiredProperties as string[] | undefined) ?? [])
        at(`${e.instancePath}/${name}`).other.push('is required');
    } else if (e.keyword === 'const') at(e.instancePath).allowed.push(p.allowedValue);
    else if (e.keyword === 'enum') at(e.instancePath).allowed.push(...((p.allowedValues as unknown[]) ?? []));
    else if (e.keyword === 'type') at(e.instancePath).types.push(String(p.type));
    else if (!NOISE.has(e.keyword ?? '')) at(e.instancePath).other.push(words(e));
  }
  const problems: Problem[] = [];
  for (const [pointer, r] of reasons) {
    // A parent repeats its child's failure (a union tries every branch): name the deepest field.
    if ([...reasons.keys()].some((q) => q !== pointer && q.startsWith(`${pointer}/`))) continue;
    const reason =
      r.other[0] ??
      (r.allowed.length > 0
        ? `must be one of: ${[...new Set(r.allowed)].map(String).join(', ')}`
        : r.types.length > 0
          ? `must be ${[...new Set(r.types)].map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`
          : 'is not valid');
    problems.push({ pointer: pointer === '' ? '/' : pointer, reason, sentence: sentence(pointer, reason) });
  }
  return problems.length > 0
    ? problems
    : [{ pointer: '/', reason: 'is not valid', sentence: 'the body is not valid' }];
}

function words(e: SchemaError): string {
  const p = e.params as { limit?: number; pattern?: string; format?: string };
  const n = p.limit;
  switch (e.keyword) {
    case 'pattern':
      return `must be ${PATTERN_WORDS[p.pattern ?? ''] ?? `text matching the pattern ${p.pattern}`}`;
    case 'format':
      return `must be ${p.format}`;
    case 'minimum':
      return `must be at least ${n}`;
    case 'maximum':
      return `must be at most ${n}`;
    case 'exclusiveMinimum':
      return `must be more than ${n}`;
    case 'exclusiveMaximum':
      return `must be less than ${n}`;
    case 'minLength':
      return n === 1 ? 'must not be empty' : `must be at least ${n} characters long`;
    case 'maxLength':
      return `must be at most ${n} characters long`;
    case 'minItems':
      return n === 1 ? 'must not be empty' : `must have at least ${n} items`;
    case 'maxItems':
      return `must have at most ${n} items`;
    case 'uniqueItems':
      return 'must not list an item twice';
    case 'minProperties':
      return n === 1 ? 'must not be empty' : `must have at least ${n} fields`;
    case 'maxProperties':
      return `must have at most ${n} fields`;
    default:
      return e.message;
  }
}

function unknownFields(schema: unknown, errors: SchemaError[]): Problem[] {
  const out: Problem[] = [];
  for (const e of errors) {
    const names = (e.params as { additionalProperties?: string[] }).additionalProperties;
    if (names === undefined) continue;
    const known = Object.keys(objectAt(schema, e.schemaPath)?.properties ?? {});
    for (const name of names) {
      const guess = closest(name, known);
      const where = e.instancePath === '' ? '' : ` in ${dotted(e.instancePath)}`;
      const hint = guess === null ? '' : ` — did you mean "${guess}"?`;
      const pointer = `${e.instancePath}/${name}`;
      if (out.some((o) => o.pointer === pointer)) continue;
      out.push({
        pointer,
        reason: `unknown field${hint}`,
        sentence: `unknown field "${name}"${where}${hint}`,
      });
    }
  }
  return out;
}

/** The object schema a `schemaPath` (`#/properties/filters`) points at, if it is one. */
function objectAt(schema: unknown, schemaPath = '#'): { properties?: Record<string, unknown> } | null {
  let node = schema as Record<string, unknown> | undefined;
  for (const token of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = node?.[token.replaceAll('~1', '/').replaceAll('~0', '~')] as Record<string, unknown> | undefined;
  }
  return node !== null && typeof node === 'object' ? node : null;
}

/** The known name a typo most likely meant: same letters but case, or at most 2 edits away. */
function closest(name: string, known: string[]): string | null {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: { name: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d <= Math.min(2, Math.floor(k.length / 3)) && (best === null || d < best.d)) best = { name: k, d };
  }
  return best?.name ?? null;
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
}
