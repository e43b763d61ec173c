import type { FastifyBaseLogger } from 'fastify';
import type { AuditStore } from '../audit/audit.port.js';
import { recordBulkRead } from '../audit/record-audit.js';
import type { Caller } from '../directory/directory.js';

/**
 * A v1 range read's pieces (V1Piece), passed on as they come and counted: once the range is done (or the
 * client went away), a read of more than LEADLINE_AUDIT_BULK_READ leads leaves one
 * `leads.bulk_read` audit record (docs/privacy.md "Audit log"). The answer is streaming by then:
 * a record that cannot be written is logged, the answer is not broken.
 */
export async function* countedRange<T extends { count: number }>(
  pieces: AsyncIterable<T>,
  ports: { audit: AuditStore },
  read: { caller: Caller; operation: string; threshold: number; now: () => number; log: FastifyBaseLogger },
): AsyncGenerator<T> {
  let count = 0;
  try {
    for await (const piece of pieces) {
      count += piece.count;
      yield piece;
    }
  } finally {
    await recordBulkRead(ports, { ...read, count, at: read.now() }).catch((err: unknown) =>
      read.log.error({ err }, 'audit: the bulk read was not recorded'),
    );
  }
}
