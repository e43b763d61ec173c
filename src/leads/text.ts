/**
 * The searchable text of a lead (v2 `query` clauses) and the one definition of how text
 * matches, shared by both engines so they answer the same:
 *
 * - folding: Unicode compatibility decomposition, combining marks removed, lower case — so
 *   matching ignores case and accents ("José" = "jose");
 * - EXACT: the whole folded field equals the folded value;
 * - FUZZY: trigram word similarity (PostgreSQL pg_trgm's `word_similarity`: the best Jaccard
 *   overlap between the value's trigrams and any run of the field's trigrams) of at least
 *   FUZZY_THRESHOLD — tolerant of a typo in a name, and matching a part of a longer field.
 *
 * PostgreSQL computes the similarity with pg_trgm itself; SQLite finds candidates through an
 * FTS5 trigram index and checks them with `wordSimilarity` below.
 */

import { TEXT_FIELDS, type TextField } from '../schemas/lead-vocabulary.js';

export { TEXT_FIELDS, type TextField };

/** Folded values of a lead's searchable fields, in TEXT_FIELDS order ('' when unset). */
export type LeadText = string[];

/**
 * Word similarity a FUZZY value must reach: pg_trgm's default for `similarity`. Measured on
 * pg_trgm: "jonh"→"john" 0.4, "smyth"→"smith" 0.33, "micheal"→"michael" 0.5 match; "mike"→"mark"
 * 0.2 does not. A swap of a short name's first letters ("jhon" 0.2) is beyond trigrams.
 */
export const FUZZY_THRESHOLD = 0.3;
/** FUZZY needs this many characters (after folding): shorter values match nearly everything. */
export const FUZZY_MIN_LENGTH = 3;

/** Only ASCII: NFKD leaves it as it is and it has no combining marks, so folding is lower case. */
const ASCII = /^\p{ASCII}*$/u;

export function fold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Words as pg_trgm sees them: runs of letters and digits. */
export function words(folded: string): string[] {
  return folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

const EMAIL = TEXT_FIELDS.indexOf('email');

/** Whether folded text holds an e-mail (v2's `hasEmail` filter). */
export function hasEmail(text: LeadText): boolean {
  return (text[EMAIL] ?? '') !== '';
}

/**
 * A lead's folded text where it is needed. Every lead has it but one an import prepared for a
 * store that takes padded words instead (NewLead `text`), and only that store is given such a lead.
 */
export function foldedText(lead: { text: LeadText | null }): LeadText {
  if (lead.text === null) throw new Error('a lead with padded words only, where its folded text is indexed');
  return lead.text;
}

/** A name split the way v2 reports it when only a full name is known: first word, the rest. */
export function splitName(name: string): { first: string | null; last: string | null } {
  const parts = name.trim().split(/\s+/u).filter(Boolean);
  if (parts.length === 0) return { first: null, last: null };
  return { first: parts[0]!, last: parts.length > 1 ? parts.slice(1).join(' ') : null };
}

/** The name a lead was given, when its source gave first and last apart. */
export interface GivenName {
  firstName: string | null;
  lastName: string | null;
}

/** One searchable field of a lead, folded ('' when unset), from its v1 `fields` members. */
export function leadField(fields: Record<string, unknown>, given: GivenName, field: TextField): string {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  switch (field) {
    case 'firstName':
      return fold(given.firstName ?? splitName(str(fields.name)).first ?? '');
    case 'lastName':
      return fold(given.lastName ?? splitName(str(fields.name)).last ?? '');
    case 'fullName':
      return fold(str(fields.name));
    case 'email':
      return fold(str(fields.email));
    case 'companyName':
      return fold(str(fields.company));
    case 'jobTitle':
      return fold(str(fields.jobTitle));
    case 'note':
      return fold(str(fields.note));
  }
}

/** Every searchable field of a lead, folded, in TEXT_FIELDS order (v2 names → v1 `fields` members). */
export function leadText(fields: Record<string, unknown>, given: GivenName): LeadText {
  return TEXT_FIELDS.map((f) => leadField(fields, given, f));
}

/** A lead's searchable text and whether it holds an e-mail (NewLead `text` and `hasEmail`). */
export function searchable(
  fields: Record<string, unknown>,
  given: GivenName,
): { text: LeadText; hasEmail: boolean } {
  const text = leadText(fields, given);
  return { text, hasEmail: hasEmail(text) };
}

/** pg_trgm's trigrams of one word: two spaces before, one after. */
function wordTrigrams(word: string): string[] {
  const padded = `  ${word} `;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

/** Every word's trigrams, in order: the sequence word similarity runs over. */
export function trigrams(folded: string): string[] {
  return words(folded).flatMap(wordTrigrams);
}

/**
 * The field as the SQLite FTS5 trigram index stores it: each word padded as pg_trgm pads it,
 * so the padded trigrams of a FUZZY value find it.
 */
export function paddedWords(folded: string): string {
  return words(folded)
    .map((w) => `  ${w} `)
    .join('');
}

/**
 * The value's trigram set, kept for the last value: a search checks every candidate against
 * the same value, so this is computed once per clause, not once per candidate.
 */
let lastValue: { value: string; set: Set<string> } = { value: '', set: new Set() };
function valueTrigrams(foldedValue: string): Set<string> {
  if (lastValue.value !== foldedValue)
    lastValue = { value: foldedValue, set: new Set(trigrams(foldedValue)) };
  return lastValue.set;
}

/**
 * Greatest Jaccard similarity between the value's trigram set and the trigram set of any
 * contiguous run of the field's trigrams (pg_trgm `word_similarity(value, field)`).
 */
export function wordSimilarity(foldedValue: string, foldedField: string): number {
  const want = valueTrigrams(foldedValue);
  if (want.size === 0) return 0;
  const seq = trigrams(foldedField);
  let best = 0;
  for (let i = 0; i < seq.length; i++) {
    if (!want.has(seq[i]!)) continue; // the best run starts and ends on a shared trigram
    const run = new Set<string>();
    let shared = 0;
    for (let j = i; j < seq.length; j++) {
      const t = seq[j]!;
      if (!run.has(t)) {
        run.add(t);
        if (want.has(t)) shared++;
      }
      const score = shared / (want.size + run.size - shared);
      if (score > best) best = score;
    }
  }
  return best;
}

/** The FTS5 query that finds every lead sharing a padded trigram with the value. */
export function ftsAnyTrigram(foldedValue: string): string {
  const distinct = [...new Set(trigrams(foldedValue))];
  return distinct.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}
