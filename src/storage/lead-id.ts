import { randomBytes } from 'node:crypto';

/**
 * The v1 `id` of a lead created without one (v2 creation). It was the store-wide sequence, so
 * two leads created a minute apart told one team how many every other team had stored. Now it is
 * drawn at random: a 16-digit decimal integer (10^15 … 2^53 − 1), so it still reads as the
 * "integer" the v1 contract describes and survives a client that parses it as a JSON number.
 * Leads created before keep the id they were given.
 */
const LOWEST = 10n ** 15n;

export function randomLeadId(): string {
  for (;;) {
    // 53 random bits; the ~11% below 10^15 are drawn again so every id has 16 digits.
    const n = randomBytes(8).readBigUInt64BE() >> 11n;
    if (n >= LOWEST) return n.toString();
  }
}

/**
 * Where stores draw ids from. Tests replace `draw` to force a collision; nothing else should.
 * With 2^53 values a member's ids collide about never, but the store still checks and draws
 * again rather than trust chance (leads_identity would turn a clash at one epoch into a 500).
 */
export const leadIds = { draw: randomLeadId };

/** Draws in a row before giving up: with a working random source the second draw is never needed. */
export const LEAD_ID_DRAWS = 8;

export function leadIdExhausted(): Error {
  return new Error(`no free v1 lead id after ${LEAD_ID_DRAWS} draws: is the random source broken?`);
}
