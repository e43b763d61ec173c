import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { KeyStore } from '../keys/keys.port.js';
import { AppError } from '../shared/errors.js';
import type { Brownout } from './gates.js';
import type { RetirementStore } from './retirement.port.js';

/** Why a brownout was not scheduled; each transport says it in its own words. */
export type BrownoutRefusal =
  | { kind: 'ends-before-start' }
  | { kind: 'already-ended' }
  | { kind: 'unknown-keys'; keyIds: number[] };

export class BrownoutRefused extends AppError {
  constructor(readonly refusal: BrownoutRefusal) {
    super('invalid-parameters', `brownout refused: ${refusal.kind}`);
    this.name = 'BrownoutRefused';
  }
}

export interface ScheduledBrownout {
  brownout: Brownout;
  /** Brownouts already covering the same window for the same keys (most likely a command run twice). */
  sameAs: number[];
}

/**
 * Schedules a window during which v1 answers 410 (docs/v1-deprecation-policy.md), for every key
 * (`keyIds` null) or the keys named: it ends after it starts and after `now`, and names stored
 * keys only. The same window for the same keys twice is added too (removing one is one command);
 * `sameAs` names the ones already there.
 */
export async function scheduleBrownout(
  store: { keys: KeyStore; retirement: RetirementStore; audit: AuditStore },
  input: { startsAt: number; endsAt: number; keyIds: number[] | null; now: number; actor: AuditActor },
): Promise<ScheduledBrownout> {
  const { startsAt, endsAt, keyIds, now } = input;
  if (endsAt <= startsAt) throw new BrownoutRefused({ kind: 'ends-before-start' });
  if (endsAt <= now) throw new BrownoutRefused({ kind: 'already-ended' });
  if (keyIds !== null) {
    const known = new Set((await store.keys.list()).map((k) => k.id));
    const unknown = keyIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new BrownoutRefused({ kind: 'unknown-keys', keyIds: unknown });
  }
  const sorted = (k: number[] | null) => JSON.stringify(k === null ? null : [...k].sort((x, y) => x - y));
  const sameAs = (await store.retirement.brownouts())
    .filter((b) => b.startsAt === startsAt && b.endsAt === endsAt && sorted(b.keyIds) === sorted(keyIds))
    .map((b) => b.id);
  const brownout = await store.retirement.addBrownout({ startsAt, endsAt, keyIds, createdAt: now });
  await recordAudit(store, {
    at: now,
    teamId: null,
    actor: input.actor,
    action: 'brownout.scheduled',
    details: { brownoutId: brownout.id, startsAt, endsAt, keyIds },
  });
  return { brownout, sameAs };
}
