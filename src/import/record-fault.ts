/**
 * A bad import record's fault in words, the API's sentence for it (schema-errors.ts). Loaded only
 * when a record does not fit its schema: it brings TypeBox and compiles the record's schema, which
 * preparing records no longer does (src/schemas/record-checks.ts).
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { LeadRecord, MemberRecord, SubteamRecord, TeamRecord } from '../schemas/import-records.js';
import { describeErrors, type SchemaError } from '../schemas/schema-errors.js';

export type RecordKind = 'team' | 'member' | 'subteam' | 'lead';

const SCHEMAS: Record<RecordKind, TSchema> = {
  team: TeamRecord,
  member: MemberRecord,
  subteam: SubteamRecord,
  lead: LeadRecord,
};

/** Why `value` does not fit the schema of a `record` record: its first error. */
export function recordFault(record: RecordKind, value: unknown): string {
  const schema = SCHEMAS[record];
  const first = describeErrors(schema, Compile(schema).Errors(value) as SchemaError[])[0];
  return first?.sentence.replace(/^the body /, 'the record ') ?? 'invalid record';
}
