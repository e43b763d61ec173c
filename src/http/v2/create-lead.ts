import { createLead as createLeadFor } from '../../leads/create-lead.js';
import { leadToV2 } from '../../leads/v2-wire.js';
import { CreateBody } from '../../schemas/v2.js';
import { invalidParams } from '../../shared/errors.js';
import { assertStorableBody } from '../../shared/storable-text.js';
import { validBody } from '../route-schema.js';
import { V2_PREFIX, type V2Handler } from './handler.js';

/** Visible ASCII, as most APIs that take an Idempotency-Key accept (a UUID fits). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * POST /api/pub/v2/leads: a profile-connection or card-scan lead for the caller's member,
 * visible to v1 and v2 reads as soon as the 201 is sent. With `Idempotency-Key`, the same key
 * and body create the lead once (a retry gets the same lead, `Idempotent-Replayed: true`); the
 * same key with another body is a 409.
 */
export const createLead: V2Handler = async ({ caller, config, store, now }, request, reply) => {
  const body = validBody(request, CreateBody);
  assertStorableBody(body);
  const keyHeader = request.headers['idempotency-key'];
  if (keyHeader !== undefined && (typeof keyHeader !== 'string' || !IDEMPOTENCY_KEY.test(keyHeader))) {
    throw invalidParams([
      { name: 'Idempotency-Key', reason: '1 to 255 visible ASCII characters, given once' },
    ]);
  }
  const result = await createLeadFor(store, config, {
    caller,
    body,
    idempotencyKey: keyHeader ?? null,
    now,
  });
  reply.code(201).header('location', `${V2_PREFIX}/${result.lead.uuid}`);
  // A new lead is at version 1 (docs/v2.md "Versions"); a replay's lead may have changed since,
  // so it carries no ETag: read the lead for its version.
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  else reply.header('etag', '"1"');
  return { data: leadToV2(result.lead) };
};
