import type { AuditActor, AuditStore } from '../audit/audit.port.js';
import { recordAudit } from '../audit/record-audit.js';
import type { DirectoryStore } from '../directory/directory.port.js';
import type { ApiKey, KeyStore } from './keys.port.js';
import { displayPrefix, generateKey, hashKey } from './token.js';

export class KeyCommandError extends Error {
  override name = 'KeyCommandError';
}

export interface CreateKeyInput {
  /** Member id, or the member's e-mail. */
  member: number | string;
  label?: string | null;
  legacyV1?: boolean;
  expiresAt?: number | null;
  /** Who the audit log names; absent: the operator (the command line, the demo seed). */
  actor?: AuditActor;
}

export interface CreatedKey extends ApiKey {
  /** The secret: returned once, never stored. */
  key: string;
}

/** Creates a key for a member; the secret is in the result and nowhere else. One `key.created` audit record. */
export async function createKey(
  store: { keys: KeyStore; directory: DirectoryStore; audit: AuditStore },
  input: CreateKeyInput,
  now = Date.now(),
): Promise<CreatedKey> {
  const member = await store.directory.findMember(input.member);
  if (member === null) throw new KeyCommandError(`no member ${JSON.stringify(input.member)}`);
  if (input.expiresAt != null && input.expiresAt <= now)
    throw new KeyCommandError('--expires must be in the future');
  const key = generateKey();
  const stored = await store.keys.create({
    memberId: member.id,
    display: displayPrefix(key),
    hash: hashKey(key),
    label: input.label ?? null,
    createdAt: now,
    expiresAt: input.expiresAt ?? null,
    legacyV1: input.legacyV1 ?? false,
  });
  await recordAudit(store, {
    at: now,
    teamId: member.teamId,
    actor: input.actor ?? { via: 'operator' },
    action: 'key.created',
    details: {
      keyId: stored.id,
      memberId: member.id,
      legacyV1: stored.legacyV1,
      expiresAt: stored.expiresAt,
    },
  });
  return { ...stored, key };
}
