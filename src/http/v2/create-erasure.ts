import { eraseData, reclaimAfterErasure } from '../../privacy/erase.js';
import { receiptToWire } from '../../privacy/wire.js';
import { ErasureBody } from '../../schemas/privacy.js';
import { validBody } from '../route-schema.js';
import type { V2Handler } from './handler.js';

export const ERASURES_PREFIX = '/api/pub/v2/erasures';

/**
 * POST /api/pub/v2/erasures (docs/privacy.md "Erasure"): team admins erase a person from their
 * team, by e-mail or lead ids; 201 with the receipt. The e-mail travels in the body only and is
 * never logged. After the commit the freed space is reclaimed in the background (SQLite: a WAL
 * checkpoint; PostgreSQL: VACUUM): the answer does not wait for it, a failure is logged and the
 * next erasure's reclaim, or autovacuum, makes up for it (docs: "Physically gone").
 */
export const createErasure: V2Handler = async ({ caller, store, now }, request, reply) => {
  const body = validBody(request, ErasureBody);
  const receipt = await eraseData(store, {
    by: { caller },
    ...(body.email !== undefined ? { email: body.email } : {}),
    ...(body.leadIds !== undefined ? { leadIds: body.leadIds } : {}),
    now,
  });
  reclaimAfterErasure(store).catch((err: unknown) =>
    request.log.error({ err, erasureId: receipt.id }, 'erasure: reclaiming the freed space failed'),
  );
  reply.code(201).header('location', `${ERASURES_PREFIX}/${receipt.id}`);
  return { data: receiptToWire(receipt) };
};
