import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { describeErrors, type SchemaError } from '../schemas/schema-errors.js';
import { invalidParams } from '../shared/errors.js';

/**
 * A compiled check for a request schema. A failing value is a 400 whose `invalid_params` name
 * each offending field by its JSON pointer, with the reason in words (schema-errors.ts), and
 * whose `detail` says it in sentences — unknown fields first and each by name (with the field
 * it most likely meant), since a silently dropped field is how a client's typo turns into a
 * wrong answer.
 */
export function validator<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const check = Compile(schema);
  return (value) => {
    if (check.Check(value)) return value as Static<T>;
    const problems = describeErrors(schema, check.Errors(value) as SchemaError[]);
    throw invalidParams(
      problems.map((p) => ({ name: p.pointer, reason: p.reason })),
      problems.map((p) => p.sentence).join('; '),
    );
  };
}
