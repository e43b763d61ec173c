import type { FastifyRequest } from 'fastify';
import { invalidParams } from '../../shared/errors.js';
import { lastEventId, wantsEventStream } from '../sse.js';
import { DEFAULT_LIMIT } from './search-leads.js';

/**
 * Query parameters the cursor-paged feeds share (`/leads/changes`, `/events`, webhook
 * deliveries): one parser each, so every feed answers a bad value in the same words.
 */

export function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalidParams([{ name, reason: 'give it once, not empty' }]);
  return value;
}

export function parseLimit(value: unknown): number {
  const text = single(value, 'limit');
  if (text === undefined) return DEFAULT_LIMIT;
  const n = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) throw invalidParams([{ name: 'limit', reason: 'an integer from 1 to 1000' }]);
  return n;
}

/** `wait` as text: whole seconds from 0 to `max`, or null when it is not. */
export function waitSeconds(text: string, max: number): number | null {
  const n = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  return n >= 0 && n <= max ? n : null;
}

/** Why a `wait` was refused (the 400's reason). */
export const waitReason = (max: number): string => `whole seconds from 0 to ${max}`;

/** `wait`: whole seconds from 0 (answer at once) to the configured maximum (LEADLINE_FEED_MAX_WAIT_SECONDS). */
export function parseWait(value: unknown, max: number): number {
  const text = single(value, 'wait');
  if (text === undefined) return 0;
  const n = waitSeconds(text, max);
  if (n === null) throw invalidParams([{ name: 'wait', reason: waitReason(max) }]);
  return n;
}

/**
 * Where a waiting feed's request starts (docs/v2.md "Waiting for changes"): on an event stream
 * the `Last-Event-ID` an EventSource resends wins over the `cursor` of the URL; the name is the
 * one a bad cursor's 400 gives.
 */
export function resumePoint(
  request: FastifyRequest,
  cursor: string | undefined,
): { stream: boolean; cursor: string | undefined; name: 'cursor' | 'Last-Event-ID' } {
  const stream = wantsEventStream(request);
  const resume = stream ? lastEventId(request) : undefined;
  return {
    stream,
    cursor: resume ?? cursor,
    name: resume === undefined ? 'cursor' : 'Last-Event-ID',
  };
}
