import { type LeadText, TEXT_FIELDS, type TextField } from '../../leads/text.js';

/**
 * How a lead's folded searchable text (lead-text.ts) is stored on PostgreSQL: `text_fields`
 * holds the fields one by one in TEXT_FIELDS order (for the per-field rechecks), `search` joins
 * them for the pg_trgm GIN index that finds candidates.
 */

/** Space-joined: trigrams are per word, so the joined text has every field's trigrams and no others. */
export function searchText(text: LeadText): string {
  return text.join(' ');
}

/** The `text_fields` subscript (SQL arrays count from 1) of a field. */
export function textFieldIndex(field: TextField): number {
  const i = TEXT_FIELDS.indexOf(field);
  if (i < 0) throw new Error(`unknown text field ${JSON.stringify(field)}`);
  return i + 1;
}

/** Texts turned column-wise, one array per field, for `unnest` (a 2-D array would flatten). */
export function textColumns(texts: LeadText[]): string[][] {
  return TEXT_FIELDS.map((_, i) => texts.map((t) => t[i] ?? ''));
}
