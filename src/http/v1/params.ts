import type { EpochRange } from '../../leads/leads.port.js';
import { type InvalidParam, invalidParams } from '../../shared/errors.js';

/** Greatest epoch a range bound may name (docs/v1-reference.md, C3): the ECMAScript Date range. */
export const MAX_EPOCH = 8_640_000_000_000_000;
const DIGITS = /^[0-9]+$/;

type Query = Record<string, unknown>;

/** One plain decimal value, or the reason it is not: missing, repeated, empty or malformed. */
function single(query: Query, name: string): { value?: string; reason?: string } {
  const raw = query[name];
  if (raw === undefined) return {};
  if (Array.isArray(raw)) return { reason: 'must be given once' };
  if (typeof raw !== 'string' || raw === '') return { reason: 'must not be empty' };
  if (!DIGITS.test(raw)) return { reason: 'must be a decimal integer without sign, fraction or exponent' };
  return { value: raw.replace(/^0+(?=\d)/, '') };
}

function epochParam(query: Query, name: string, required: boolean, errors: InvalidParam[]): number | null {
  const { value, reason } = single(query, name);
  if (reason !== undefined) {
    errors.push({ name, reason });
    return null;
  }
  if (value === undefined) {
    if (required) errors.push({ name, reason: 'is required' });
    return null;
  }
  if (value.length > 16 || Number(value) > MAX_EPOCH) {
    errors.push({ name, reason: `must be at most ${MAX_EPOCH}` });
    return null;
  }
  return Number(value);
}

/** `start` (required) and `end` (optional) of operations 4 and 5: half-open `[start, end)` (C3). */
export function parseRange(query: Query): EpochRange {
  const errors: InvalidParam[] = [];
  const start = epochParam(query, 'start', true, errors);
  const end = epochParam(query, 'end', false, errors);
  if (start !== null && end !== null && end < start)
    errors.push({ name: 'end', reason: 'must not be less than start' });
  if (errors.length > 0 || start === null) throw invalidParams(errors);
  return { start, end };
}

/** `subTeamId` of operation 3: required, once, a positive decimal integer (C3). */
export function parseSubteamId(query: Query): number {
  const { value, reason } = single(query, 'subTeamId');
  if (reason !== undefined) throw invalidParams([{ name: 'subTeamId', reason }]);
  if (value === undefined) throw invalidParams([{ name: 'subTeamId', reason: 'is required' }]);
  if (value === '0') throw invalidParams([{ name: 'subTeamId', reason: 'must be a positive integer' }]);
  // Beyond the safe-integer range no subteam can exist: answer as for any unknown id.
  return value.length > 16 ? Number.MAX_SAFE_INTEGER + 1 : Number(value);
}
