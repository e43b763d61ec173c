import type { Config } from '../config.js';
import type { Caller } from '../directory/directory.js';
import type { DirectoryStore } from '../directory/directory.port.js';
import { emailOf, refuseSuppressed, type SuppressionPorts } from '../privacy/suppression.js';
import type { CreateBody } from '../schemas/v2.js';
import { AppError } from '../shared/errors.js';
import { fingerprint } from './cursor.js';
import type { Lead } from './lead.js';
import type { IdempotencyClaim, LeadStore } from './leads.port.js';
import { newLeadFrom } from './new-lead.js';

export interface CreateLeadInput {
  caller: Caller;
  body: CreateBody;
  /** The request's `Idempotency-Key`, already checked for its form; null: none. */
  idempotencyKey: string | null;
  now: number;
}

/**
 * Stores a v2 lead for the caller's member (docs/v2.md), visible to v1 and v2 reads once this
 * resolves. With an idempotency key, the same key and body create the lead once (`replayed` on
 * the next); the same key with another body is `idempotency-conflict`. A lead carrying an erased,
 * suppressed e-mail is refused: `email-suppressed` (docs/privacy.md "Suppression").
 */
export async function createLead(
  store: { directory: DirectoryStore; leads: LeadStore } & SuppressionPorts,
  config: Pick<Config, 'captureToleranceMs'>,
  input: CreateLeadInput,
): Promise<{ lead: Lead; replayed: boolean }> {
  const { caller, body, now } = input;
  const member = await store.directory.findMember(caller.memberId);
  const team = await store.directory.team(caller.teamId);
  if (member === null || team === null)
    throw new AppError('unauthorized', "This key's member no longer exists.");
  const lead = newLeadFrom(body, member, team, now, config.captureToleranceMs);
  await refuseSuppressed(store, caller.teamId, emailOf(lead.fields));
  const claim: IdempotencyClaim | null =
    input.idempotencyKey === null
      ? null
      : { keyId: caller.keyId, key: input.idempotencyKey, bodyHash: fingerprint(body), at: now };
  const result = await store.leads.create(lead, claim);
  if (result.kind === 'conflict') {
    throw new AppError(
      'idempotency-conflict',
      'This Idempotency-Key was already used with a different body; send a new key for a new lead.',
    );
  }
  return { lead: result.lead, replayed: result.kind === 'replayed' };
}
