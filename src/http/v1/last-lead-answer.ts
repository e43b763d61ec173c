import type { Lead } from '../../leads/lead.js';
import { lastLeadBody } from '../../leads/v1-wire.js';
import { etagOf } from '../etag.js';

/** A last-lead operation's body and its validator. */
export interface LastLeadAnswer {
  body: string;
  etag: string;
}

/**
 * Answers made once per lead object: while a member's last lead is unchanged the store hands out
 * the same object (LastLeadMemory in src/storage), so a poller's answer is neither serialised nor
 * compared again. Weakly held: an answer goes when its lead is forgotten.
 */
const answers = new WeakMap<Lead, LastLeadAnswer>();
let none: LastLeadAnswer | undefined;

export function lastLeadAnswer(lead: Lead | null): LastLeadAnswer {
  if (lead === null) {
    none ??= { body: lastLeadBody(null), etag: etagOf(lastLeadBody(null)) };
    return none;
  }
  let answer = answers.get(lead);
  if (answer === undefined) {
    const body = lastLeadBody(lead);
    answer = { body, etag: etagOf(body, lead.id) };
    answers.set(lead, answer);
  }
  return answer;
}
