import type { AuditActor } from '../audit/audit.port.js';
import { keyActor } from '../audit/record-audit.js';
import { requireTeamAdmin } from '../directory/access.js';
import type { Caller } from '../directory/directory.js';
import { normaliseEmail } from '../leads/email.js';
import { fold } from '../leads/text.js';
import { AppError, invalidParams } from '../shared/errors.js';
import { uuid7 } from '../shared/uuid7.js';
import { EMAIL_HASH_SECRET, emailHash } from './email.js';
import type { ErasureReceipt, ErasureRequester, ErasureStore } from './erasure.port.js';
import { personEmail } from './person-email.js';

/** How many lead ids one erasure may name. */
export const MAX_ERASED_IDS = 10_000;

/**
 * Who erases: a team admin's API key (the team's leads), a team admin signed in to the console
 * (the session is their proof: "Erase a person"), or the operator on the command line, for one
 * team or — `teamId: null` — every team.
 */
export type Eraser =
  | { caller: Caller }
  | { console: { memberId: number; teamId: number } }
  | { operator: { teamId: number | null } };

/** The team an eraser erases in (null: every team, the operator's). */
function teamOf(by: Eraser): number | null {
  if ('caller' in by) return by.caller.teamId;
  return 'console' in by ? by.console.teamId : by.operator.teamId;
}

/** How the receipt and the audit log name the eraser. */
function requesterOf(by: Eraser): { requestedBy: ErasureRequester; actor: AuditActor } {
  if ('caller' in by)
    return {
      requestedBy: { via: 'key', keyId: by.caller.keyId, memberId: by.caller.memberId },
      actor: keyActor(by.caller),
    };
  if ('console' in by) {
    const who = { via: 'console', memberId: by.console.memberId } as const;
    return { requestedBy: who, actor: who };
  }
  return { requestedBy: { via: 'operator' }, actor: { via: 'operator' } };
}

export interface EraseInput {
  by: Eraser;
  /** One of the two: a person's e-mail (every lead holding it), or leads by their v2 ids. */
  email?: string;
  leadIds?: string[];
  now: number;
  /**
   * Who the audit log names; absent: the key's caller, or the operator. The retention job
   * passes `{ via: 'server' }`, a console form `{ via: 'console', memberId }`.
   */
  actor?: AuditActor;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Erases a person (docs/privacy.md "Erasure"): by e-mail, every lead of the team (every team,
 * for the operator without one) whose e-mail is that address once normalised — merged ones too,
 * and every lead merged into one of them — and the e-mail is suppressed from then on, even when
 * nothing matched; by lead ids, those leads (each must be a lead of the team: otherwise nothing
 * is erased). One transaction, with its one `lead.erased` audit record; the receipt says what went. `POST /api/pub/v2/erasures` and
 * `leadline erase` both erase through here; they run `reclaim` after (docs: "Physically gone").
 */
export async function eraseData(
  ports: { erasures: ErasureStore; secret: (name: string) => Promise<Buffer> },
  input: EraseInput,
): Promise<ErasureReceipt> {
  const hasEmail = input.email !== undefined;
  const hasIds = input.leadIds !== undefined;
  if (hasEmail === hasIds) {
    throw invalidParams([{ name: '/', reason: 'give either email or leadIds, not both and not neither' }]);
  }
  if ('caller' in input.by) requireTeamAdmin(input.by.caller);
  const teamId = teamOf(input.by);
  const { requestedBy, actor: byActor } = requesterOf(input.by);
  const id = uuid7(input.now);
  const actor = input.actor ?? byActor;
  if (input.email !== undefined) {
    const email = personEmail(input.email);
    const hash = emailHash(await ports.secret(EMAIL_HASH_SECRET), email);
    const candidates = await ports.erasures.candidates(teamId, fold(email));
    const leads = candidates
      .filter((c) => {
        const fields = JSON.parse(c.fields) as Record<string, unknown>;
        return typeof fields.email === 'string' && normaliseEmail(fields.email) === email;
      })
      .map((c) => ({ teamId: c.teamId, uuid: c.uuid }));
    return ports.erasures.erase({
      id,
      teamId,
      requestedBy,
      at: input.now,
      emailHash: hash,
      leadIds: 0,
      leads,
      suppress: { teamId, emailHash: hash },
      actor,
    });
  }
  const ids = input.leadIds ?? [];
  if (teamId === null) throw new Error('an erasure by lead ids names its team');
  const problems: { name: string; reason: string }[] = [];
  if (ids.length === 0) problems.push({ name: '/leadIds', reason: 'must name at least one lead' });
  if (ids.length > MAX_ERASED_IDS)
    problems.push({ name: '/leadIds', reason: `may name at most ${MAX_ERASED_IDS} leads` });
  const seen = new Set<string>();
  for (let i = 0; i < ids.length; i++) {
    const lower = ids[i]!.toLowerCase();
    if (!UUID.test(lower)) problems.push({ name: `/leadIds/${i}`, reason: 'is not a lead id (a UUID)' });
    else if (seen.has(lower)) problems.push({ name: `/leadIds/${i}`, reason: 'is named twice' });
    seen.add(lower);
  }
  if (problems.length === 0) {
    const existing = await ports.erasures.existing(teamId, ids);
    // Every id named once (checked above): as many found as named means all of them.
    const found = existing.length === ids.length ? null : new Set(existing.map((u) => u.toLowerCase()));
    for (let i = 0; found !== null && i < ids.length; i++)
      if (!found.has(ids[i]!.toLowerCase()))
        problems.push({
          name: `/leadIds/${i}`,
          reason: 'names no lead of this team (or one already erased)',
        });
  }
  if (problems.length > 0) throw invalidParams(problems.slice(0, 20));
  return ports.erasures.erase({
    id,
    teamId,
    requestedBy,
    at: input.now,
    emailHash: null,
    leadIds: ids.length,
    leads: ids.map((uuid) => ({ teamId, uuid })),
    suppress: null,
    actor,
  });
}

/**
 * A receipt (docs/privacy.md "Receipts"): a team admin reads the team's own, the operator any.
 * Another team's, an all-teams one for a key, or none: the same 404.
 */
export async function erasureReceipt(
  ports: { erasures: ErasureStore },
  by: Eraser,
  id: string,
): Promise<ErasureReceipt> {
  if ('caller' in by) requireTeamAdmin(by.caller);
  const receipt = UUID.test(id) ? await ports.erasures.receipt(id.toLowerCase()) : null;
  const own = teamOf(by);
  if (receipt === null || (own !== null && receipt.teamId !== own))
    throw new AppError('not-found', `No erasure ${id} for this key.`);
  return receipt;
}

/**
 * After an erasure has committed: the freed bytes made unreadable (SQLite: the WAL checkpointed
 * and truncated; PostgreSQL: VACUUM of the touched tables) — docs/privacy.md "Physically gone".
 */
export async function reclaimAfterErasure(ports: { erasures: ErasureStore }): Promise<void> {
  await ports.erasures.reclaim();
}
