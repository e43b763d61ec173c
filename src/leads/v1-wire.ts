import type { Lead } from './lead.js';

/**
 * Lead → v1 wire JSON text (docs/v1-reference.md C1).
 *
 * Built by concatenation rather than `JSON.stringify` of an object: `fields` is already JSON
 * text, so a lead is emitted without being parsed. `lat`/`long` are emitted only with consent.
 */
export function leadToV1Json(lead: Lead): string {
  let out = `{"id":${JSON.stringify(lead.id)},"epoch":${lead.epoch},"time":${JSON.stringify(lead.time)},"userId":${lead.userId},"userEmail":${JSON.stringify(lead.userEmail)},"userPid":${JSON.stringify(lead.userPid)}`;
  if (lead.locationShared) {
    if (lead.lat !== null) out += `,"lat":${JSON.stringify(lead.lat)}`;
    if (lead.long !== null) out += `,"long":${JSON.stringify(lead.long)}`;
  }
  return lead.fields.length > 2 ? `${out},${lead.fields.slice(1)}` : `${out}}`;
}

/** `[]` or `[lead]`: the body of the three "last lead" operations (C4). */
export function lastLeadBody(lead: Lead | null): string {
  return lead === null ? '[]' : `[${leadToV1Json(lead)}]`;
}

/**
 * A v1 range's answer, piece by piece: the first piece opens the array (`[` and its leads), each
 * later one continues it (`,` before each lead); the reader closes it with `]` — or answers `[]`
 * when no piece comes. `count`: the leads in the piece (the bulk-read audit counts them).
 */
export interface V1Piece {
  text: string;
  count: number;
}

/** A range's batches as v1 pieces (V1Piece), serialised where they are read. */
export async function* v1Pieces(batches: AsyncIterable<Lead[]>): AsyncGenerator<V1Piece> {
  let separator = '[';
  for await (const batch of batches) {
    let text = '';
    for (const lead of batch) {
      text += separator + leadToV1Json(lead);
      separator = ',';
    }
    if (batch.length > 0) yield { text, count: batch.length };
  }
}
