import { fingerprint } from '../../leads/cursor.js';
import type { IdempotencyClaim } from '../../leads/leads.port.js';
import { newLeadFrom } from '../../leads/new-lead.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { CreateBody } from '../../schemas/v2.js';
import { AppError, invalidParams } from '../../shared/errors.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { validator } from '../validate.js';
import { V2_PREFIX, type V2Handler } from './context.js';

const checkBody = validator(CreateBody);
/** Visible ASCII, as most APIs that take an Idempotency-Key accept (a UUID fits). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * POST /api/pub/v2/leads: a profile-connection or card-scan lead for the caller's member,
 * visible to v1 and v2 reads as soon as the 201 is sent. With `Idempotency-Key`, the same key
 * and body create the lead once (a retry gets the same lead, `Idempotent-Replayed: true`); the
 * same key with another body is a 409.
 */
export const createLead: V2Handler = async ({ caller, config, store, now }, request, reply) => {
  const body = checkBody(request.body);
  assertStorableBody(body);
  const keyHeader = request.headers['idempotency-key'];
  if (keyHeader !== undefined && (typeof keyHeader !== 'string' || !IDEMPOTENCY_KEY.test(keyHeader))) {
    throw invalidParams([
      { name: 'Idempotency-Key', reason: '1 to 255 visible ASCII characters, given once' },
    ]);
  }
  const member = await store.directory.findMember(caller.memberId);
  const team = await store.directory.team(caller.teamId);
  if (member === null || team === null)
    throw new AppError('unauthorized', "This key's member no longer exists.");
  const lead = newLeadFrom(body, member, team, now, config.captureToleranceMs);
  const claim: IdempotencyClaim | null =
    keyHeader === undefined
      ? null
      : { keyId: caller.keyId, key: keyHeader, bodyHash: fingerprint(body), at: now };
  const result = await store.leads.create(lead, claim);
  if (result.kind === 'conflict') {
    throw new AppError(
      'idempotency-conflict',
      'This Idempotency-Key was already used with a different body; send a new key for a new lead.',
    );
  }
  reply.code(201).header('location', `${V2_PREFIX}/${result.lead.uuid}`);
  if (result.kind === 'replayed') reply.header('idempotent-replayed', 'true');
  return { data: leadToV2(result.lead) };
};
