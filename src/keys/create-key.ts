import type { Store } from '../store.js';
import type { ApiKey } from './keys.port.js';
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
}

export interface CreatedKey extends ApiKey {
  /** The secret: returned once, never stored. */
  key: string;
}

/** Creates a key for a member; the secret is in the result and nowhere else. */
export async function createKey(
  store: Pick<Store, 'directory' | 'keys'>,
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
  return { ...stored, key };
}
