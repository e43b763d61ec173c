import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { type InvalidParam, invalidParams } from '../domain/errors.js';

interface SchemaError {
  instancePath: string;
  message: string;
  params: unknown;
  keyword?: string;
}

/**
 * A compiled check for a request schema. A failing value is a 400 whose `invalid_params` name
 * each offending member by its JSON pointer — unknown members first and each by name, since a
 * silently dropped member is how a client's typo turns into a wrong answer.
 */
export function validator<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const check = Compile(schema);
  return (value) => {
    if (check.Check(value)) return value as Static<T>;
    throw invalidParams(describe(check.Errors(value) as SchemaError[]));
  };
}

function describe(errors: SchemaError[]): InvalidParam[] {
  const out: InvalidParam[] = [];
  const seen = new Set<string>();
  const add = (name: string, reason: string) => {
    const key = `${name}\u0000${reason}`;
    if (!seen.has(key)) out.push({ name, reason });
    seen.add(key);
  };
  for (const e of errors) {
    const extra = (e.params as { additionalProperties?: string[] }).additionalProperties;
    if (extra !== undefined) for (const name of extra) add(`${e.instancePath}/${name}`, 'unknown member');
  }
  if (out.length > 0) return out;
  // Union branches each report, and a parent repeats its child's failure: keep one reason per
  // member, the most specific one, and no parent of a member already named.
  const byPath = new Map<string, string>();
  for (const e of errors) {
    const path = e.instancePath === '' ? '/' : e.instancePath;
    if (!byPath.has(path) || NOISE.has(byPath.get(path) ?? '')) byPath.set(path, e.message);
  }
  for (const [path, reason] of byPath) {
    const hasChild = [...byPath.keys()].some(
      (p) => p !== path && p.startsWith(path === '/' ? '/' : `${path}/`),
    );
    if (!hasChild) add(path, reason);
  }
  return out.length > 0 ? out : [{ name: '/', reason: 'invalid body' }];
}

const NOISE = new Set(['schema is false', 'must be null', 'must match a schema in anyOf']);
